//! A layered layout of a directed graph, as Sugiyama drew them: each node in a rank after the
//! nodes it follows, the ranks ordered to keep edges short and straight, an edge that spans ranks
//! bent through points of its own so that it passes between the cards, never through one. Pure
//! and deterministic: the same graph always lands on the same coordinates.

use std::collections::BTreeSet;

/// Which way the ranks follow each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Down,
    Up,
    Right,
    Left,
}

impl Direction {
    /// Whether the ranks run from top to bottom (or bottom to top), so edges leave a node's
    /// bottom or top.
    pub fn vertical(self) -> bool {
        matches!(self, Direction::Down | Direction::Up)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }

    pub fn center(&self) -> Point {
        Point { x: self.x + self.w / 2.0, y: self.y + self.h / 2.0 }
    }
}

/// What to lay out: each node's size, the edges between them, and the nodes that sit beside
/// another in its rank (a fallback beside the step it stands in for).
#[derive(Debug, Clone)]
pub struct Graph {
    /// Width and height of each node.
    pub sizes: Vec<(f64, f64)>,
    pub edges: Vec<(usize, usize)>,
    /// `(node, anchor)`: the node takes its anchor's rank, just after it.
    pub beside: Vec<(usize, usize)>,
    pub direction: Direction,
    /// Room between two ranks, where edges and their labels run.
    pub rank_gap: f64,
    /// Room between two nodes of one rank.
    pub node_gap: f64,
    /// Room between a node and the one beside it, for the label of the edge between them.
    pub beside_gap: f64,
}

/// Where everything landed, with a margin, in a box of `width` by `height`.
#[derive(Debug, Clone)]
pub struct Layout {
    pub nodes: Vec<Rect>,
    /// For each edge of the graph, in its order: the points its line passes, from its source to
    /// its target. Empty for an edge from a node to itself.
    pub edges: Vec<Vec<Point>>,
    pub width: f64,
    pub height: f64,
}

pub const MARGIN: f64 = 20.0;
/// The room a line that passes a rank takes in it.
const PASSING: f64 = 10.0;
const SWEEPS: usize = 6;

/// One node of the ranked graph: a real node, or a point a long edge passes.
struct Slot {
    across: f64,
    along: f64,
    rank: usize,
    preds: Vec<usize>,
    succs: Vec<usize>,
    /// A node of the graph, not a point a long edge passes.
    real: bool,
}

pub fn layout(g: &Graph) -> Layout {
    let n = g.sizes.len();
    let vertical = g.direction.vertical();
    // Edges oriented so that none goes back: an edge that would close a cycle is turned round.
    let oriented: Vec<Option<(usize, usize, bool)>> = orient(n, &g.edges);
    let rank = ranks(n, &oriented, &g.beside);

    let mut slots: Vec<Slot> = g
        .sizes
        .iter()
        .enumerate()
        .map(|(i, &(w, h))| Slot {
            across: if vertical { w } else { h },
            along: if vertical { h } else { w },
            rank: rank[i],
            preds: Vec::new(),
            succs: Vec::new(),
            real: true,
        })
        .collect();
    // Each edge becomes a chain of slots, one per rank it crosses.
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(g.edges.len());
    for edge in &oriented {
        let Some((from, to, _)) = *edge else {
            chains.push(Vec::new());
            continue;
        };
        let mut chain = vec![from];
        let mut last = from;
        for r in rank[from] + 1..rank[to] {
            let id = slots.len();
            slots.push(Slot {
                across: PASSING,
                along: 0.0,
                rank: r,
                preds: vec![last],
                succs: Vec::new(),
                real: false,
            });
            slots[last].succs.push(id);
            chain.push(id);
            last = id;
        }
        slots[last].succs.push(to);
        slots[to].preds.push(last);
        chain.push(to);
        chains.push(chain);
    }

    let ranks_count = slots.iter().map(|s| s.rank + 1).max().unwrap_or(0);
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); ranks_count];
    for (i, s) in slots.iter().enumerate() {
        order[s.rank].push(i);
    }
    let beside_of = |node: usize| g.beside.iter().find(|(b, _)| *b == node).map(|(_, a)| *a);
    sweep(&slots, &mut order);
    place_beside(&mut order, n, &g.beside);

    // Across: packed in order, each as near as it may be to the middle of its neighbours.
    let mut pos: Vec<f64> = vec![0.0; slots.len()];
    for rank_nodes in &order {
        pack(&slots, rank_nodes, &mut pos, &vec![None; rank_nodes.len()], g, &beside_of);
    }
    for pass in 0..4 {
        let downward = pass % 2 == 0;
        let sequence: Vec<usize> =
            if downward { (1..ranks_count).collect() } else { (0..ranks_count.saturating_sub(1)).rev().collect() };
        for r in sequence {
            let wanted: Vec<Option<f64>> = order[r]
                .iter()
                .map(|&i| {
                    let near = if downward { &slots[i].preds } else { &slots[i].succs };
                    mean(near.iter().map(|&j| pos[j] + slots[j].across / 2.0)).map(|c| c - slots[i].across / 2.0)
                })
                .collect();
            pack(&slots, &order[r], &mut pos, &wanted, g, &beside_of);
        }
    }
    let low = pos.iter().copied().fold(f64::INFINITY, f64::min);
    let low = if low.is_finite() { low } else { 0.0 };
    let across_extent = slots.iter().enumerate().map(|(i, s)| pos[i] - low + s.across).fold(0.0, f64::max);

    // Along: each rank a band as deep as its deepest node, the nodes centred in it.
    let mut band_start = Vec::with_capacity(ranks_count);
    let mut band_depth = Vec::with_capacity(ranks_count);
    let mut at = 0.0;
    for rank_nodes in &order {
        let depth = rank_nodes.iter().map(|&i| slots[i].along).fold(0.0, f64::max);
        band_start.push(at);
        band_depth.push(depth);
        at += depth + g.rank_gap;
    }
    let along_extent = (at - g.rank_gap).max(0.0);

    let rect_of = |i: usize| -> Rect {
        let s = &slots[i];
        let across = pos[i] - low + MARGIN;
        let along = band_start[s.rank] + (band_depth[s.rank] - s.along) / 2.0;
        let along = match g.direction {
            Direction::Down | Direction::Right => along,
            Direction::Up | Direction::Left => along_extent - along - s.along,
        } + MARGIN;
        if vertical {
            Rect { x: across, y: along, w: s.across, h: s.along }
        } else {
            Rect { x: along, y: across, w: s.along, h: s.across }
        }
    };
    let nodes: Vec<Rect> = (0..n).map(rect_of).collect();
    let edges = chains
        .iter()
        .zip(&oriented)
        .map(|(chain, edge)| {
            let Some((_, _, turned)) = *edge else { return Vec::new() };
            let mut points: Vec<Point> = Vec::with_capacity(chain.len());
            for (k, &i) in chain.iter().enumerate() {
                let r = rect_of(i);
                let c = r.center();
                points.push(if k == 0 {
                    exit(&r, g.direction)
                } else if k + 1 == chain.len() {
                    entry(&r, g.direction)
                } else {
                    c
                });
            }
            if turned {
                points.reverse();
            }
            points
        })
        .collect();
    let (w, h) = if vertical { (across_extent, along_extent) } else { (along_extent, across_extent) };
    Layout { nodes, edges, width: w + 2.0 * MARGIN, height: h + 2.0 * MARGIN }
}

/// Where an edge leaves a node, on the side facing the next rank.
fn exit(r: &Rect, d: Direction) -> Point {
    let c = r.center();
    match d {
        Direction::Down => Point { x: c.x, y: r.y + r.h },
        Direction::Up => Point { x: c.x, y: r.y },
        Direction::Right => Point { x: r.x + r.w, y: c.y },
        Direction::Left => Point { x: r.x, y: c.y },
    }
}

/// Where an edge comes into a node, on the side facing the rank before.
fn entry(r: &Rect, d: Direction) -> Point {
    let c = r.center();
    match d {
        Direction::Down => Point { x: c.x, y: r.y },
        Direction::Up => Point { x: c.x, y: r.y + r.h },
        Direction::Right => Point { x: r.x, y: c.y },
        Direction::Left => Point { x: r.x + r.w, y: c.y },
    }
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, count) = values.fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
    (count > 0).then(|| sum / count as f64)
}

/// Each edge as `(from, to, turned)`, where an edge that would close a cycle is turned round so
/// that the ranks can follow each other; `None` for an edge from a node to itself.
fn orient(n: usize, edges: &[(usize, usize)]) -> Vec<Option<(usize, usize, bool)>> {
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, &(a, b)) in edges.iter().enumerate() {
        if a < n && b < n && a != b {
            out_edges[a].push(k);
        }
    }
    // Depth first from each node in order; an edge to a node still on the path goes back.
    let mut state = vec![0u8; n]; // 0 unseen, 1 on the path, 2 done
    let mut back = vec![false; edges.len()];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&k) = out_edges[node].get(*next) {
                *next += 1;
                let to = edges[k].1;
                match state[to] {
                    0 => {
                        state[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => back[k] = true,
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    edges
        .iter()
        .enumerate()
        .map(|(k, &(a, b))| {
            if a >= n || b >= n || a == b {
                None
            } else if back[k] {
                Some((b, a, true))
            } else {
                Some((a, b, false))
            }
        })
        .collect()
}

/// The longest path to each node: one rank per edge, none for a node beside its anchor.
fn ranks(n: usize, oriented: &[Option<(usize, usize, bool)>], beside: &[(usize, usize)]) -> Vec<usize> {
    let mut next: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    let mut incoming = vec![0usize; n];
    for &(a, b, _) in oriented.iter().flatten() {
        next[a].push((b, 1));
        incoming[b] += 1;
    }
    for &(node, anchor) in beside {
        if node < n && anchor < n && node != anchor {
            next[anchor].push((node, 0));
            incoming[node] += 1;
        }
    }
    let mut rank = vec![0usize; n];
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| incoming[i] == 0).collect();
    while let Some(i) = ready.pop_first() {
        for &(j, step) in &next[i] {
            rank[j] = rank[j].max(rank[i] + step);
            incoming[j] -= 1;
            if incoming[j] == 0 {
                ready.insert(j);
            }
        }
    }
    // A node a cycle of `beside` left unranked keeps what it has; a checked workflow has none.
    rank
}

/// Orders each rank by the mean place of its neighbours in the rank before (then after), a few
/// times, so that edges cross as little as this simple rule finds.
fn sweep(slots: &[Slot], order: &mut [Vec<usize>]) {
    let mut place = vec![0.0; slots.len()];
    let mark = |order: &[Vec<usize>], place: &mut Vec<f64>| {
        for rank_nodes in order {
            for (k, &i) in rank_nodes.iter().enumerate() {
                place[i] = k as f64;
            }
        }
    };
    mark(order, &mut place);
    for pass in 0..SWEEPS {
        let downward = pass % 2 == 0;
        let ranks: Vec<usize> =
            if downward { (1..order.len()).collect() } else { (0..order.len().saturating_sub(1)).rev().collect() };
        for r in ranks {
            let mut keyed: Vec<(f64, usize)> = order[r]
                .iter()
                .map(|&i| {
                    let near = if downward { &slots[i].preds } else { &slots[i].succs };
                    (mean(near.iter().map(|&j| place[j])).unwrap_or(place[i]), i)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            order[r] = keyed.into_iter().map(|(_, i)| i).collect();
            for (k, &i) in order[r].iter().enumerate() {
                place[i] = k as f64;
            }
        }
    }
}

/// Puts each node that sits beside another just after it, a chain of them in their order.
fn place_beside(order: &mut [Vec<usize>], n: usize, beside: &[(usize, usize)]) {
    if beside.is_empty() {
        return;
    }
    let is_beside = |i: usize| i < n && beside.iter().any(|(b, _)| *b == i);
    for rank_nodes in order.iter_mut() {
        let mut placed = Vec::with_capacity(rank_nodes.len());
        let mut seen = BTreeSet::new();
        for &i in rank_nodes.iter().filter(|&&i| !is_beside(i)) {
            emit(i, beside, &mut placed, &mut seen);
        }
        // A node beside one of another rank (which no checked plan makes) keeps its place.
        for &i in rank_nodes.iter() {
            if !seen.contains(&i) {
                emit(i, beside, &mut placed, &mut seen);
            }
        }
        let here: BTreeSet<usize> = rank_nodes.iter().copied().collect();
        placed.retain(|i| here.contains(i));
        *rank_nodes = placed;
    }
}

fn emit(i: usize, beside: &[(usize, usize)], placed: &mut Vec<usize>, seen: &mut BTreeSet<usize>) {
    if !seen.insert(i) {
        return;
    }
    placed.push(i);
    for &(b, a) in beside {
        if a == i {
            emit(b, beside, placed, seen);
        }
    }
}

/// Places one rank across: in its order, each slot as near its wanted place as the one before
/// lets it, then the whole rank shifted so that it sits, on average, where it was wanted.
fn pack(
    slots: &[Slot],
    rank_nodes: &[usize],
    pos: &mut [f64],
    wanted: &[Option<f64>],
    g: &Graph,
    beside_of: &dyn Fn(usize) -> Option<usize>,
) {
    let mut end: Option<f64> = None;
    let mut drift = Vec::new();
    for (k, &i) in rank_nodes.iter().enumerate() {
        let want = wanted[k].unwrap_or(pos[i]);
        let gap = match (k.checked_sub(1).map(|p| rank_nodes[p]), slots[i].real) {
            (Some(prev), true) if beside_of(i) == Some(prev) => g.beside_gap,
            (Some(prev), true) if slots[prev].real => g.node_gap,
            _ => g.node_gap / 2.0,
        };
        let at = match end {
            Some(e) => want.max(e + gap),
            None => want,
        };
        if wanted[k].is_some() {
            drift.push(want - at);
        }
        pos[i] = at;
        end = Some(at + slots[i].across);
    }
    // Only a shift back is free of the gaps: the packing pushed slots one way alone.
    if let Some(shift) = mean(drift.into_iter()) {
        for &i in rank_nodes {
            pos[i] += shift;
        }
    }
}
