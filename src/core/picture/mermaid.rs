//! A function's Mermaid diagram drawn as SVG, for the subset functions write: a `flowchart` (or
//! `graph`) in a direction, nodes of the common shapes, and edges plain, dotted or thick, with
//! an arrow or none, labelled as `-->|yes|` or `-- yes -->`, chained and joined with `&`. Any
//! other line (a subgraph, a click, a shape this does not know) draws nothing: Studio shows the
//! source instead. Styling lines (`classDef`, `class`, `style`, `linkStyle`) are left out.

use super::layout::{layout, Direction, Graph, Point, Rect};
use super::svg::{fit, middle, num, width_of, Svg};

/// The most nodes and edges drawn; a larger diagram is shown as its source.
const NODES_MAX: usize = 300;
const EDGES_MAX: usize = 600;
/// The characters of a line of a node's text before it wraps.
const WRAP: usize = 28;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Rect,
    Round,
    Stadium,
    Subroutine,
    Cylinder,
    Circle,
    Flag,
    Diamond,
    Hexagon,
    Lean,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stroke {
    Plain,
    Dotted,
    Thick,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    pub text: String,
    pub shape: Shape,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub stroke: Stroke,
    pub arrow: bool,
    pub label: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Flowchart {
    pub direction: Direction,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

/// The most points the edges of a diagram may bend through, so that a diagram of many long
/// edges is shown as its source rather than as a picture of megabytes.
const BENDS_MAX: usize = 20_000;

/// The diagram drawn as SVG, or None when it is not a flowchart of the subset drawn here.
pub fn mermaid(source: &str) -> Option<String> {
    let chart = parse(source)?;
    draw(&chart)
}

/// The flowchart a diagram writes, or None where it writes anything this does not draw.
pub fn parse(source: &str) -> Option<Flowchart> {
    let mut lines = source.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("%%"));
    let head = lines.next()?;
    let mut words = head.split_whitespace();
    if !matches!(words.next(), Some("flowchart") | Some("graph")) {
        return None;
    }
    let direction = match words.next().map(|w| w.trim_end_matches(';')) {
        None | Some("TD") | Some("TB") => Direction::Down,
        Some("BT") => Direction::Up,
        Some("LR") => Direction::Right,
        Some("RL") => Direction::Left,
        Some(_) => return None,
    };
    if words.next().is_some() {
        return None;
    }
    let mut chart = Flowchart { direction, nodes: Vec::new(), edges: Vec::new() };
    for line in lines {
        let first = line.split_whitespace().next().unwrap_or("");
        if matches!(first, "classDef" | "class" | "style" | "linkStyle") {
            continue;
        }
        for statement in split_statements(line) {
            let statement = statement.trim();
            if !statement.is_empty() {
                Parser { text: statement, at: 0 }.statement(&mut chart)?;
            }
        }
        if chart.nodes.len() > NODES_MAX || chart.edges.len() > EDGES_MAX {
            return None;
        }
    }
    (!chart.nodes.is_empty()).then_some(chart)
}

/// A line's statements, split at each `;` outside quotes and node text.
fn split_statements(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '(' | '{' if !quoted => depth += 1,
            ']' | ')' | '}' if !quoted => depth -= 1,
            ';' if !quoted && depth <= 0 => {
                out.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&line[start..]);
    out
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

/// A shape's opening and closing marks, longest first so that `((` is read before `(`.
const SHAPES: &[(&str, &str, Shape)] = &[
    ("([", "])", Shape::Stadium),
    ("((", "))", Shape::Circle),
    ("[[", "]]", Shape::Subroutine),
    ("[(", ")]", Shape::Cylinder),
    ("[/", "/]", Shape::Lean),
    ("[\\", "\\]", Shape::Lean),
    ("{{", "}}", Shape::Hexagon),
    ("[", "]", Shape::Rect),
    ("(", ")", Shape::Round),
    ("{", "}", Shape::Diamond),
    (">", "]", Shape::Flag),
];

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, mark: &str) -> bool {
        if self.rest().starts_with(mark) {
            self.at += mark.len();
            true
        } else {
            false
        }
    }

    /// `A & B --> C -- label --> D`: each group of nodes, joined by links.
    fn statement(&mut self, chart: &mut Flowchart) -> Option<()> {
        let mut group = self.group(chart)?;
        loop {
            self.skip_space();
            if self.rest().is_empty() {
                return Some(());
            }
            let (stroke, arrow, label) = self.link()?;
            self.skip_space();
            let next = self.group(chart)?;
            if chart.edges.len() + group.len() * next.len() > EDGES_MAX {
                return None;
            }
            for &from in &group {
                for &to in &next {
                    chart.edges.push(Edge { from, to, stroke, arrow, label: label.clone() });
                }
            }
            group = next;
        }
    }

    fn group(&mut self, chart: &mut Flowchart) -> Option<Vec<usize>> {
        let mut nodes = vec![self.node(chart)?];
        loop {
            self.skip_space();
            if !self.eat("&") {
                return Some(nodes);
            }
            self.skip_space();
            nodes.push(self.node(chart)?);
        }
    }

    /// A node by its id, with its shape and text where this mention gives them.
    fn node(&mut self, chart: &mut Flowchart) -> Option<usize> {
        let rest = self.rest();
        let len: usize = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').map(char::len_utf8).sum();
        if len == 0 {
            return None;
        }
        let id = rest[..len].to_string();
        if matches!(id.as_str(), "subgraph" | "end" | "click" | "direction") {
            return None;
        }
        self.at += len;
        let mut given = None;
        for &(open, close, shape) in SHAPES {
            if self.eat(open) {
                let text = self.until(close)?;
                given = Some((text, shape));
                break;
            }
        }
        // A class given in place, `A[text]:::done`, is styling: left out as the styling lines are.
        if self.eat(":::") {
            let rest = self.rest();
            self.at += rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-'))
                .map(char::len_utf8)
                .sum::<usize>();
        }
        let index = match chart.nodes.iter().position(|n| n.id == id) {
            Some(i) => i,
            None => {
                chart.nodes.push(Node { id: id.clone(), text: id, shape: Shape::Rect });
                chart.nodes.len() - 1
            }
        };
        if let Some((text, shape)) = given {
            chart.nodes[index].text = text;
            chart.nodes[index].shape = shape;
        }
        Some(index)
    }

    /// The text up to `close`, unquoted; a quoted text may hold the closing mark.
    fn until(&mut self, close: &str) -> Option<String> {
        let rest = self.rest();
        if let Some(inner) = rest.strip_prefix('"') {
            let end = inner.find('"')?;
            let text = inner[..end].trim_matches('`').to_string();
            self.at += 1 + end + 1;
            return self.eat(close).then_some(text);
        }
        let end = rest.find(close)?;
        let text = rest[..end].trim().to_string();
        self.at += end + close.len();
        Some(text)
    }

    /// A link: `-->`, `---`, `-.->`, `-.-`, `==>`, `===`, longer ones, `-- text -->` and the
    /// like, each with an optional `|text|` after it.
    fn link(&mut self) -> Option<(Stroke, bool, Option<String>)> {
        let rest = self.rest();
        let run: usize = rest.chars().take_while(|c| matches!(c, '-' | '.' | '=')).count();
        let marks = &rest[..run];
        let arrow = rest[run..].starts_with('>');
        let stroke = if marks.contains('.') {
            Stroke::Dotted
        } else if marks.contains('=') {
            Stroke::Thick
        } else {
            Stroke::Plain
        };
        // `-- text -->`, `-. text .->`, `== text ==>`: the opening, the text, then the link.
        if !arrow && matches!(marks, "--" | "-." | "==") && rest[run..].starts_with(char::is_whitespace) {
            let ends: &[&str] = match marks {
                "--" => &["-->", "---"],
                "-." => &[".->", ".-"],
                _ => &["==>", "==="],
            };
            let after = &rest[run..];
            let end = ends.iter().filter_map(|m| after.find(m)).min()?;
            let label = after[..end].trim().to_string();
            let tail_len = after[end..].chars().take_while(|c| matches!(c, '-' | '.' | '=' | '>')).count();
            let closed = &after[end..end + tail_len];
            self.at += run + end + tail_len;
            let arrow = closed.ends_with('>');
            return Some((stroke, arrow, (!label.is_empty()).then_some(label)));
        }
        let ok = match stroke {
            Stroke::Plain => marks.chars().all(|c| c == '-') && marks.len() >= if arrow { 2 } else { 3 },
            Stroke::Thick => marks.chars().all(|c| c == '=') && marks.len() >= if arrow { 2 } else { 3 },
            Stroke::Dotted => {
                marks.starts_with('-')
                    && marks.ends_with('-')
                    && marks.len() >= 3
                    && marks[1..marks.len() - 1].chars().all(|c| c == '.')
            }
        };
        if !ok {
            return None;
        }
        self.at += run + usize::from(arrow);
        self.skip_space();
        let mut label = None;
        if self.eat("|") {
            let rest = self.rest();
            let end = rest.find('|')?;
            let text = rest[..end].trim().trim_matches('"').to_string();
            self.at += end + 1;
            label = (!text.is_empty()).then_some(text);
        }
        Some((stroke, arrow, label))
    }
}

/// A node's text in lines: `<br>` breaks a line, and a long line wraps at spaces.
fn wrap(text: &str) -> Vec<String> {
    let text = text.replace("<br/>", "\n").replace("<br />", "\n").replace("<br>", "\n");
    let mut lines = Vec::new();
    for part in text.lines() {
        let mut line = String::new();
        for word in part.split_whitespace() {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WRAP {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
    }
    lines.truncate(6);
    lines.into_iter().map(|l| fit(&l, WRAP + 12)).collect()
}

fn size(node: &Node) -> (f64, f64) {
    let lines = wrap(&node.text);
    let w = lines.iter().map(|l| width_of(l, 13.0)).fold(0.0, f64::max) + 28.0;
    let h = 16.0 * lines.len() as f64 + 18.0;
    match node.shape {
        Shape::Diamond => ((w * 1.5).max(90.0), (h * 1.5).max(60.0)),
        Shape::Circle => {
            let d = w.max(h).max(50.0);
            (d, d)
        }
        Shape::Hexagon | Shape::Lean | Shape::Flag => (w + 30.0, h),
        Shape::Cylinder => (w.max(60.0), h + 14.0),
        _ => (w.max(60.0), h),
    }
}

/// The flowchart drawn, or None where its edges would bend through too many points.
pub fn draw(chart: &Flowchart) -> Option<String> {
    let graph = Graph {
        sizes: chart.nodes.iter().map(size).collect(),
        edges: chart.edges.iter().map(|e| (e.from, e.to)).collect(),
        beside: Vec::new(),
        direction: chart.direction,
        rank_gap: 56.0,
        node_gap: 32.0,
        beside_gap: 32.0,
    };
    let placed = layout(&graph);
    if placed.edges.iter().map(Vec::len).sum::<usize>() > BENDS_MAX {
        return None;
    }
    let label = format!(
        "A diagram of {} node{} and {} edge{}",
        chart.nodes.len(),
        if chart.nodes.len() == 1 { "" } else { "s" },
        chart.edges.len(),
        if chart.edges.len() == 1 { "" } else { "s" }
    );
    let mut svg = Svg::new(placed.width, placed.height, &label);
    for (k, e) in chart.edges.iter().enumerate() {
        let class = match e.stroke {
            Stroke::Plain => "pb-edge",
            Stroke::Dotted => "pb-edge pb-dotted",
            Stroke::Thick => "pb-edge pb-thick",
        };
        let arrow = e.arrow.then_some("pb-arrow");
        match placed.edges.get(k) {
            Some(points) if !points.is_empty() => {
                svg.edge(points, chart.direction, class, arrow);
                if let (Some(l), Some(at)) = (&e.label, middle(points)) {
                    svg.tag(at, &fit(l, 30));
                }
            }
            // A node's edge to itself: a small loop on its right.
            _ => {
                if let Some(r) = placed.nodes.get(e.from) {
                    let (x, y) = (r.x + r.w, r.y + r.h / 2.0);
                    svg.push(&format!(
                        "<path d=\"M{} {} C{} {} {} {} {} {}\" class=\"{class}\"/>",
                        num(x),
                        num(y - 8.0),
                        num(x + 24.0),
                        num(y - 20.0),
                        num(x + 24.0),
                        num(y + 20.0),
                        num(x),
                        num(y + 8.0)
                    ));
                }
            }
        }
    }
    for (node, r) in chart.nodes.iter().zip(&placed.nodes) {
        svg.group("pb-mnode", &node.text);
        shape(&mut svg, node.shape, r);
        let lines = wrap(&node.text);
        let c = r.center();
        let top = c.y - 16.0 * lines.len() as f64 / 2.0 + 12.0;
        for (i, line) in lines.iter().enumerate() {
            svg.text(c.x, top + 16.0 * i as f64, "pb-sub", line, true);
        }
        svg.close();
    }
    Some(svg.finish())
}

fn shape(svg: &mut Svg, shape: Shape, r: &Rect) {
    let (x0, y0, x1, y1) = (r.x, r.y, r.x + r.w, r.y + r.h);
    let c = r.center();
    let polygon = |points: &[Point]| -> String {
        let mut d = String::new();
        for (i, p) in points.iter().enumerate() {
            d.push_str(&format!("{}{} {} ", if i == 0 { "M" } else { "L" }, num(p.x), num(p.y)));
        }
        format!("<path d=\"{d}Z\" class=\"pb-node pb-card\"/>")
    };
    let p = |x: f64, y: f64| Point { x, y };
    match shape {
        Shape::Rect => svg.rect(x0, y0, r.w, r.h, 2.0, "pb-node pb-card"),
        Shape::Round => svg.rect(x0, y0, r.w, r.h, 10.0, "pb-node pb-card"),
        Shape::Stadium => svg.rect(x0, y0, r.w, r.h, r.h / 2.0, "pb-node pb-card"),
        Shape::Subroutine => {
            svg.rect(x0, y0, r.w, r.h, 2.0, "pb-node pb-card");
            svg.push(&format!(
                "<path d=\"M{} {} L{} {} M{} {} L{} {}\" class=\"pb-edge\"/>",
                num(x0 + 8.0),
                num(y0),
                num(x0 + 8.0),
                num(y1),
                num(x1 - 8.0),
                num(y0),
                num(x1 - 8.0),
                num(y1)
            ));
        }
        Shape::Cylinder => {
            let ry = 7.0;
            svg.push(&format!(
                "<path d=\"M{x0} {t} A{rx} {ry} 0 0 1 {x1} {t} L{x1} {b} A{rx} {ry} 0 0 1 {x0} {b} Z\" class=\"pb-node pb-card\"/>",
                x0 = num(x0),
                x1 = num(x1),
                t = num(y0 + ry),
                b = num(y1 - ry),
                rx = num(r.w / 2.0),
                ry = num(ry)
            ));
            svg.push(&format!(
                "<path d=\"M{x0} {t} A{rx} {ry} 0 0 0 {x1} {t}\" class=\"pb-edge\"/>",
                x0 = num(x0),
                x1 = num(x1),
                t = num(y0 + ry),
                rx = num(r.w / 2.0),
                ry = num(ry)
            ));
        }
        Shape::Circle => svg.push(&format!(
            "<ellipse cx=\"{}\" cy=\"{}\" rx=\"{}\" ry=\"{}\" class=\"pb-node pb-card\"/>",
            num(c.x),
            num(c.y),
            num(r.w / 2.0),
            num(r.h / 2.0)
        )),
        Shape::Diamond => svg.push(&polygon(&[p(c.x, y0), p(x1, c.y), p(c.x, y1), p(x0, c.y)])),
        Shape::Hexagon => svg.push(&polygon(&[
            p(x0 + 15.0, y0),
            p(x1 - 15.0, y0),
            p(x1, c.y),
            p(x1 - 15.0, y1),
            p(x0 + 15.0, y1),
            p(x0, c.y),
        ])),
        Shape::Lean => svg.push(&polygon(&[p(x0 + 15.0, y0), p(x1, y0), p(x1 - 15.0, y1), p(x0, y1)])),
        Shape::Flag => svg.push(&polygon(&[p(x0, y0), p(x1, y0), p(x1, y1), p(x0, y1), p(x0 + 15.0, c.y)])),
    }
}
