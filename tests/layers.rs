//! The layers' import rules, read off the source: which folder may name which, and no import cycle
//! between files. docs/architecture.md draws the same rules; this test keeps them, so a change
//! that breaks one fails `cargo test` with the files and the path that broke it.
//!
//! A file's imports are the `crate::`, `super::` and `self::` paths it names outside comments and
//! test modules, each resolved to the deepest module file it reaches.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// What a layer may never name: the left folder's files may not import the right folder's.
const NEVER: &[(&str, &[&str])] = &[
    ("core", &["ops", "tools", "mcp", "api", "shell", "guides"]),
    ("ops", &["tools", "mcp", "api", "shell", "guides"]),
    ("tools", &["mcp", "api", "shell"]),
    ("mcp", &["api", "shell"]),
    ("api", &["mcp", "shell"]),
    ("guides", &["ops", "tools", "mcp", "api", "shell"]),
    // Doors answer requests, objects keep state; they meet only through the platform's parts
    // at the shell's top (the typed calls, the backend port, the HTTP and SQL helpers).
    ("shell/doors", &["shell/objects"]),
    ("shell/objects", &["shell/doors"]),
];

/// Where a folder may name what its layer otherwise may not, and why.
const EXCEPT: &[(&str, &str, &str)] = &[(
    "api/debug",
    "mcp",
    "the /debug page shows each MCP endpoint as a client sees it: the tools, instructions and prompts the MCP server itself writes",
)];

/// The shell's top is the platform both sides stand on: it names neither side.
const PLATFORM: &str = "shell";
const PLATFORM_NEVER: &[&str] = &["shell/doors", "shell/objects"];

struct File {
    /// The module path, `core::run::life` for src/core/run/life.rs.
    module: Vec<String>,
    /// The folder it sits in, `core/run`; src/lib.rs and the top files are in "".
    folder: String,
    text: String,
}

fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    match last.as_str() {
        "lib.rs" | "mod.rs" => {}
        name => parts.push(name.trim_end_matches(".rs").to_string()),
    }
    parts
}

fn read(dir: &Path, root: &Path, out: &mut Vec<File>) {
    let mut entries: Vec<_> = fs::read_dir(dir).expect("src is readable").flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under src");
            let folder = relative.parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
            let text = fs::read_to_string(&path).expect("a source file is text");
            out.push(File { module: module_of(relative), folder, text });
        }
    }
}

/// The text without comments, string literals and `#[cfg(test)]` modules written inline.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if bytes[i..].starts_with(b"/*") {
            i += 2;
            while i < bytes.len() && !bytes[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if bytes[i] == b'"' && (i == 0 || bytes[i - 1] != b'\'') {
            // A raw string's hashes are not counted: none of ours holds a quote.
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            out.push(bytes[i] as char);
            i += 1;
        }
    }
    out
}

/// Files declared under `#[cfg(test)]` by their parent: tests may reach anywhere.
fn test_children(file: &File) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = file.text.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        rest = &rest[at + "#[cfg(test)]".len()..];
        let line = rest.trim_start().lines().next().unwrap_or_default();
        let line = line.trim_start_matches("pub ").trim_start_matches("pub(crate) ");
        if let Some(name) = line.strip_prefix("mod ").and_then(|l| l.strip_suffix(';')) {
            let mut m = file.module.clone();
            m.push(name.trim().to_string());
            out.push(m);
        }
    }
    out
}

/// Every path a `use` tree names, `a::{b, c::{d, e}}` giving `a::b`, `a::c::d` and `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    // `x as y` names x: the alias goes before the spaces do.
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut kept = String::new();
    let mut skip = false;
    for (i, w) in words.iter().enumerate() {
        if skip {
            skip = false;
            kept.push_str(w.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_'));
        } else if *w == "as" && i > 0 {
            skip = true;
        } else {
            kept.push_str(w);
        }
    }
    let tree = kept;
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.len().saturating_sub(1)];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).flat_map(expand).map(|p| format!("{prefix}{p}")).collect()
}

/// The paths a file names: its `use` trees and the paths written inline.
fn paths_of(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        let after = &rest[at..];
        let end = after.find(';').unwrap_or(after.len());
        out.extend(expand(&after[4..end]));
        rest = &after[end..];
    }
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(start) {
            let at = from + at;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            out.push(code[at..end].trim_end_matches(':').to_string());
        }
    }
    out
}

fn find_use(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find("use ") {
        let at = from + at;
        let before = text[..at].trim_end_matches(' ');
        if before.is_empty() || before.ends_with('\n') || before.ends_with("pub") || before.ends_with(')') {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// The module file a path reaches from `module`: the deepest known module along it.
/// What a front file re-exports from its children: (the module, a name) to the child that holds it.
type Reexports = BTreeMap<(Vec<String>, String), Vec<String>>;

/// The `pub use` paths of a file: the names it hands on from elsewhere.
fn pub_uses(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("pub use ") {
        let after = &rest[at + "pub use ".len()..];
        let end = after.find(';').unwrap_or(after.len());
        out.extend(expand(&after[..end]));
        rest = &after[end..];
    }
    out
}

fn resolve(path: &str, module: &[String], known: &BTreeSet<Vec<String>>, reexports: &Reexports) -> Option<Vec<String>> {
    let mut segments = path.split("::").filter(|s| !s.is_empty());
    let mut at: Vec<String> = match segments.next()? {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut m = module.to_vec();
            m.pop();
            m
        }
        // A `use child::…` of a module's own child, as a front file re-exports it.
        first => {
            let mut child = module.to_vec();
            child.push(first.to_string());
            if !known.contains(&child) {
                return None;
            }
            child
        }
    };
    for s in segments {
        if s == "super" {
            at.pop();
            continue;
        }
        let mut next = at.clone();
        next.push(s.to_string());
        if known.contains(&next) {
            at = next;
        } else if let Some(child) = reexports.get(&(at.clone(), s.to_string())) {
            // A name a front file hands on is where it is written, not the front file.
            at = child.clone();
            break;
        } else {
            break;
        }
    }
    Some(at)
}

struct Graph {
    files: Vec<File>,
    /// From a file's index to the files it imports.
    edges: BTreeMap<usize, BTreeSet<usize>>,
    /// Why each edge is there: the first path that made it.
    because: BTreeMap<(usize, usize), String>,
}

fn graph() -> Graph {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read(&root, &root, &mut files);
    graph_of(files)
}

fn graph_of(files: Vec<File>) -> Graph {
    let tests: BTreeSet<Vec<String>> = files.iter().flat_map(test_children).collect();
    let in_tests = |m: &[String]| tests.iter().any(|t| m.starts_with(t));
    let files: Vec<File> = files.into_iter().filter(|f| !in_tests(&f.module)).collect();
    let known: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let index: BTreeMap<Vec<String>, usize> = files.iter().enumerate().map(|(i, f)| (f.module.clone(), i)).collect();
    let mut reexports = Reexports::new();
    for f in &files {
        for path in pub_uses(&code_of(&f.text)) {
            let name = path.rsplit("::").next().unwrap_or_default().to_string();
            if let Some(target) = resolve(&path, &f.module, &known, &Reexports::new()) {
                if target.len() > f.module.len() && target.starts_with(&f.module) {
                    reexports.insert((f.module.clone(), name), target);
                }
            }
        }
    }
    let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    let mut because = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        for path in paths_of(&code_of(&f.text)) {
            let Some(target) = resolve(&path, &f.module, &known, &reexports) else { continue };
            let Some(&j) = index.get(&target) else { continue };
            // A module's own children and its ancestors' front files are not imports.
            if j == i || target.is_empty() || f.module.starts_with(&target) {
                continue;
            }
            edges.entry(i).or_default().insert(j);
            because.entry((i, j)).or_insert(path);
        }
    }
    Graph { files, edges, because }
}

fn name(f: &File) -> String {
    if f.module.is_empty() {
        "lib".into()
    } else {
        f.module.join("/")
    }
}

fn under(folder: &str, prefix: &str) -> bool {
    folder == prefix || folder.starts_with(&format!("{prefix}/"))
}

/// The folder a file counts in: its module path but the last part, with the file of a folder's
/// own module (`core/run/mod.rs`) counted in that folder.
fn place(f: &File) -> String {
    f.folder.clone()
}

#[test]
fn no_layer_names_what_it_may_never() {
    let broken = breaches(&graph());
    assert!(broken.is_empty(), "imports that break a layer's rule:\n{}", broken.join("\n"));
}

/// Each import that breaks a rule, with the path that made it.
fn breaches(g: &Graph) -> Vec<String> {
    let mut broken = Vec::new();
    for (&i, targets) in &g.edges {
        let from = place(&g.files[i]);
        for &j in targets {
            let to = place(&g.files[j]);
            let excepted = EXCEPT.iter().any(|(f, t, _)| under(&from, f) && under(&to, t));
            for (left, rights) in NEVER {
                if !excepted && under(&from, left) && rights.iter().any(|r| under(&to, r) && !under(&from, r)) {
                    broken.push(format!("{} -> {} ({})", name(&g.files[i]), name(&g.files[j]), g.because[&(i, j)]));
                }
            }
            if from == PLATFORM && PLATFORM_NEVER.iter().any(|r| under(&to, r)) {
                broken.push(format!("{} -> {} ({})", name(&g.files[i]), name(&g.files[j]), g.because[&(i, j)]));
            }
        }
    }
    broken
}

/// Tarjan's strongly connected components: each set of files that import each other in a ring.
fn rings(g: &Graph) -> Vec<Vec<usize>> {
    struct State<'a> {
        g: &'a Graph,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        let targets: Vec<usize> = s.g.edges.get(&v).map(|t| t.iter().copied().collect()).unwrap_or_default();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut ring = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on[w] = false;
                ring.push(w);
                if w == v {
                    break;
                }
            }
            if ring.len() > 1 {
                s.out.push(ring);
            }
        }
    }
    let n = g.files.len();
    let mut s = State {
        g,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_files_import_each_other_in_a_ring() {
    let g = graph();
    let found: Vec<String> = rings(&g)
        .iter()
        .map(|ring| {
            let mut names: Vec<String> = ring.iter().map(|&i| name(&g.files[i])).collect();
            names.sort();
            let ties: Vec<String> = ring
                .iter()
                .flat_map(|&i| g.edges[&i].iter().filter(|j| ring.contains(j)).map(move |&j| (i, j)))
                .map(|(i, j)| format!("  {} -> {} ({})", name(&g.files[i]), name(&g.files[j]), g.because[&(i, j)]))
                .collect();
            format!("{}\n{}", names.join(", "), ties.join("\n"))
        })
        .collect();
    assert!(found.is_empty(), "{} import rings:\n{}", found.len(), found.join("\n\n"));
}

#[test]
fn the_reader_sees_what_it_should() {
    assert_eq!(expand("a::{b, c::{d, e as f}}"), ["a::b", "a::c::d", "a::c::e"]);
    let paths: BTreeSet<String> =
        paths_of("use crate::core::{run, text::stamp};\nlet x = super::y::z(1);").into_iter().collect();
    for p in ["crate::core::run", "crate::core::text::stamp", "super::y::z"] {
        assert!(paths.contains(p), "{p} in {paths:?}");
    }
    assert_eq!(code_of("a // crate::x\n\"crate::y\" b"), "a \n b");
    let g = graph();
    assert!(g.files.len() > 300, "every source file is read");
    let life = g.files.iter().position(|f| f.module == ["core", "run", "life"]).expect("life.rs is read");
    assert!(!g.edges[&life].is_empty(), "life.rs imports something");
}

#[test]
fn a_planted_ring_and_a_planted_breach_are_found() {
    let file = |path: &str, text: &str| File {
        module: module_of(Path::new(path)),
        folder: Path::new(path).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
        text: text.to_string(),
    };
    let g = graph_of(vec![
        file("lib.rs", "pub mod core;\npub mod shell;"),
        file("core/mod.rs", "pub mod a;\npub mod b;"),
        file("core/a.rs", "use super::b::Thing;"),
        file("core/b.rs", "pub fn f() { crate::core::a::g() }\n// crate::shell::x in a comment is no import"),
        file("shell/mod.rs", "mod x;"),
        file("shell/x.rs", ""),
    ]);
    let found = rings(&g);
    assert_eq!(found.len(), 1, "the ring of a and b");
    let mut names: Vec<String> = found[0].iter().map(|&i| name(&g.files[i])).collect();
    names.sort();
    assert_eq!(names, ["core/a", "core/b"]);
    let core_b = g.files.iter().position(|f| f.module == ["core", "b"]).unwrap();
    let shell_x = g.files.iter().position(|f| f.module == ["shell", "x"]).unwrap();
    assert!(!g.edges[&core_b].contains(&shell_x), "a comment names nothing");
    let g = graph_of(vec![
        file("lib.rs", ""),
        file("core/mod.rs", "pub mod a;"),
        file("core/a.rs", "use crate::shell::x;"),
        file("shell/mod.rs", "mod x;"),
        file("shell/x.rs", ""),
    ]);
    assert_eq!(breaches(&g).len(), 1, "core names the shell");
}
