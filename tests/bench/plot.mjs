// The targets as a picture: for each row, one bar per concurrency, its share of the floor (1.00 is
// the floor, longer is faster), a tick where its target lies. Plain SVG with no script or outside
// reference, so a Markdown viewer shows it beside the table.
import { targets } from './targets.mjs';

const COLOURS = { 1: '#2f6fdf', 8: '#e08a1e', 64: '#7a7a7a' };
const MAX = 1.4;
const LABEL_W = 250;
const PLOT_W = 420;
const BAR_H = 9;
const GAP = 10;

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const plain = (label) => label.replaceAll('`', '');
const x = (value) => LABEL_W + (Math.min(value, MAX) / MAX) * PLOT_W;

export function plot(results) {
  const conc = results.cfg.concurrencies;
  const rows = targets(results);
  const rowH = conc.length * BAR_H + GAP;
  const top = 34;
  const height = top + rows.length * rowH + 30;
  const width = LABEL_W + PLOT_W + 20;
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  out.push(`<text x="${LABEL_W}" y="14" font-weight="600">Share of the floor (1.00 = the floor; longer is faster; ▏= target)</text>`);
  conc.forEach((c, i) => {
    const lx = LABEL_W + i * 90;
    out.push(`<rect x="${lx}" y="20" width="10" height="8" fill="${COLOURS[c] ?? '#999'}"/><text x="${lx + 14}" y="28">conc. ${c}</text>`);
  });
  for (const tick of [0, 0.5, 1, MAX]) {
    const tx = x(tick);
    out.push(`<line x1="${tx}" y1="${top - 2}" x2="${tx}" y2="${height - 24}" stroke="${tick === 1 ? '#333' : '#ddd'}"${tick === 1 ? ' stroke-dasharray="3 2"' : ''}/>`);
    out.push(`<text x="${tx}" y="${height - 10}" text-anchor="middle">${tick.toFixed(tick === 0 ? 0 : 1)}${tick === MAX ? '+' : ''}</text>`);
  }
  rows.forEach((row, i) => {
    const y = top + i * rowH;
    out.push(`<text x="${LABEL_W - 8}" y="${y + (conc.length * BAR_H) / 2 + 4}" text-anchor="end">${escape(plain(row.label))}</text>`);
    conc.forEach((c, j) => {
      const value = row.ratio(c);
      const by = y + j * BAR_H;
      if (!Number.isFinite(value)) {
        out.push(`<text x="${LABEL_W + 4}" y="${by + BAR_H - 1}" font-size="9" fill="#999">not measured</text>`);
        return;
      }
      out.push(`<rect x="${LABEL_W}" y="${by + 1}" width="${(x(value) - LABEL_W).toFixed(1)}" height="${BAR_H - 2}" fill="${COLOURS[c] ?? '#999'}"/>`);
      out.push(`<text x="${(x(value) + 3).toFixed(1)}" y="${by + BAR_H - 1}" font-size="9">${value.toFixed(2)}</text>`);
      const least = row.least[c];
      if (least !== undefined) {
        const tx = x(least).toFixed(1);
        out.push(`<line x1="${tx}" y1="${by}" x2="${tx}" y2="${by + BAR_H}" stroke="#c00" stroke-width="2"/>`);
      }
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
