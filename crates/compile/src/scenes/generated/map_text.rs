//! The `.map` text: brushes as three points a face (id's format, integer coordinates, world
//! texture alignment), entities as key/value pairs.

use std::fmt::Write;

use super::carve::{Box3, P3};

struct Face {
    points: [P3; 3],
    texture: &'static str,
}

/// One convex brush.
pub(super) struct Brush {
    faces: Vec<Face>,
}

fn sub(a: P3, b: P3) -> [f64; 3] {
    [0, 1, 2].map(|i| f64::from(a[i] - b[i]))
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

impl Brush {
    /// The prism `base` (a planar convex polygon, no three corners in a line) sweeps along
    /// `dir`; `texture` names each face's texture from its outward normal.
    pub(super) fn prism(base: &[P3], dir: P3, texture: &dyn Fn([f64; 3]) -> &'static str) -> Brush {
        let top: Vec<P3> = base
            .iter()
            .map(|p| [p[0] + dir[0], p[1] + dir[1], p[2] + dir[2]])
            .collect();
        let n = base.len() as f64 * 2.0;
        let centre: [f64; 3] = [0, 1, 2].map(|i| {
            base.iter()
                .chain(&top)
                .map(|p| f64::from(p[i]))
                .sum::<f64>()
                / n
        });
        let mut faces = Vec::with_capacity(base.len() + 2);
        let mut add = |mut p: [P3; 3]| {
            let mut normal = cross(sub(p[0], p[1]), sub(p[2], p[1]));
            let inward = [0, 1, 2]
                .map(|i| normal[i] * (centre[i] - f64::from(p[1][i])))
                .iter()
                .sum::<f64>();
            if inward > 0.0 {
                p.swap(0, 2);
                normal = normal.map(|v| -v);
            }
            let len = normal.iter().map(|v| v * v).sum::<f64>().sqrt();
            faces.push(Face {
                points: p,
                texture: texture(normal.map(|v| v / len)),
            });
        };
        add([base[0], base[1], base[2]]);
        add([top[0], top[1], top[2]]);
        for i in 0..base.len() {
            let j = (i + 1) % base.len();
            add([base[i], base[j], top[j]]);
        }
        Brush { faces }
    }

    /// An axial box.
    pub(super) fn cuboid(b: Box3, texture: &dyn Fn([f64; 3]) -> &'static str) -> Brush {
        let (lo, hi) = (b.min, b.max);
        let base = [
            [lo[0], lo[1], lo[2]],
            [hi[0], lo[1], lo[2]],
            [hi[0], hi[1], lo[2]],
            [lo[0], hi[1], lo[2]],
        ];
        Brush::prism(&base, [0, 0, hi[2] - lo[2]], texture)
    }

    /// An axial box with one texture on every face.
    pub(super) fn plain(b: Box3, texture: &'static str) -> Brush {
        Brush::cuboid(b, &|_| texture)
    }
}

/// Textures by facing: floors on top, ceilings below, walls around.
pub(super) fn by_facing(
    wall: &'static str,
    floor: &'static str,
    ceiling: &'static str,
) -> impl Fn([f64; 3]) -> &'static str {
    move |n| {
        if n[2] > 0.7 {
            floor
        } else if n[2] < -0.7 {
            ceiling
        } else {
            wall
        }
    }
}

/// One entity: its pairs in order, then its brushes.
pub(super) struct Entity {
    pairs: Vec<(String, String)>,
    pub(super) brushes: Vec<Brush>,
}

impl Entity {
    pub(super) fn new(classname: &str) -> Entity {
        Entity {
            pairs: vec![("classname".into(), classname.into())],
            brushes: Vec::new(),
        }
    }

    /// A point entity at `origin`.
    pub(super) fn at(classname: &str, origin: P3) -> Entity {
        let o = format!("{} {} {}", origin[0], origin[1], origin[2]);
        Entity::new(classname).with("origin", &o)
    }

    pub(super) fn with(mut self, key: &str, value: &str) -> Entity {
        self.pairs.push((key.into(), value.into()));
        self
    }

    pub(super) fn brush(mut self, brush: Brush) -> Entity {
        self.brushes.push(brush);
        self
    }
}

/// The text of a map of these entities (the worldspawn first).
pub(super) fn write_map(header: &str, entities: &[Entity]) -> String {
    let mut s = String::with_capacity(1 << 20);
    for line in header.lines() {
        let _ = writeln!(s, "// {line}");
    }
    for (ei, e) in entities.iter().enumerate() {
        let _ = writeln!(s, "// entity {ei}\n{{");
        for (k, v) in &e.pairs {
            let _ = writeln!(s, "\"{k}\" \"{v}\"");
        }
        for (bi, b) in e.brushes.iter().enumerate() {
            let _ = writeln!(s, "// brush {bi}\n{{");
            for f in &b.faces {
                for p in &f.points {
                    let _ = write!(s, "( {} {} {} ) ", p[0], p[1], p[2]);
                }
                let _ = writeln!(s, "{} 0 0 0 1 1", f.texture);
            }
            s.push_str("}\n");
        }
        s.push_str("}\n");
    }
    s
}
