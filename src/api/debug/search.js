(() => {
  const box = document.getElementById('search');
  const input = document.getElementById('search-words');
  const hits = document.getElementById('search-hits');
  // What a search reads: the tools and prompts of the connection picked, and the guides.
  const items = () => {
    const panel = document.querySelector('.pick:checked')?.dataset.panel ?? 'root';
    return [...document.querySelectorAll(`#${panel} [data-kind], #guides [data-kind]`)];
  };
  const show = () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    hits.replaceChildren();
    if (words.length === 0) return;
    const found = items()
      .map((el) => ({ el, name: el.dataset.name.toLowerCase(), text: el.textContent.toLowerCase() }))
      .filter((h) => words.every((w) => h.text.includes(w)))
      .sort((a, b) => Number(!words.every((w) => a.name.includes(w))) - Number(!words.every((w) => b.name.includes(w))));
    for (const { el } of found.slice(0, 40)) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = `#${el.id}`;
      a.textContent = el.dataset.name;
      const kind = document.createElement('span');
      kind.className = 'kind';
      kind.textContent = el.dataset.kind;
      li.append(a, ' ', kind);
      hits.append(li);
    }
    if (found.length === 0) {
      const li = document.createElement('li');
      li.textContent = 'No tool, guide or prompt holds these words.';
      hits.append(li);
    }
  };
  const open = () => {
    if (!box.open) box.showModal();
    input.select();
  };
  document.addEventListener('keydown', (e) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName ?? '');
    if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
      e.preventDefault();
      open();
    } else if (e.key === '/' && !box.open && !typing) {
      e.preventDefault();
      open();
    }
  });
  input.addEventListener('input', show);
  input.addEventListener('keydown', (e) => {
    const first = hits.querySelector('a');
    if (e.key === 'Enter' && first) {
      e.preventDefault();
      first.click();
    }
  });
  hits.addEventListener('click', (e) => {
    if (e.target.closest('a')) box.close();
  });
  document.getElementById('open-search').addEventListener('click', open);
})();
