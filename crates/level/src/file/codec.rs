//! The primitive writer and reader: little-endian numbers, `f32` by its bits, counted vectors,
//! every length checked against the bytes left.

use glam::{Vec2, Vec3};

use super::LvlError;
use crate::BspChild;
use lanthorn_geom::{Aabb, Plane};

pub(super) struct W(pub(super) Vec<u8>);

impl W {
    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(super) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    /// `v` as a half (`geom::half`: the nearest, ties to even).
    pub(super) fn f16(&mut self, v: f32) {
        self.0
            .extend_from_slice(&lanthorn_geom::half::from_f32(v).to_le_bytes());
    }
    pub(super) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("level section longer than u32::MAX"));
    }
    pub(super) fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }
    pub(super) fn vec3(&mut self, v: Vec3) {
        self.f32(v.x);
        self.f32(v.y);
        self.f32(v.z);
    }
    pub(super) fn plane(&mut self, p: &Plane) {
        self.vec3(p.normal);
        self.f32(p.dist);
    }
    pub(super) fn aabb(&mut self, b: &Aabb) {
        self.vec3(b.min);
        self.vec3(b.max);
    }
    pub(super) fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }
    pub(super) fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    pub(super) fn u32s(&mut self, v: &[u32]) {
        self.len(v.len());
        for &x in v {
            self.u32(x);
        }
    }
    pub(super) fn opt_bytes(&mut self, b: &Option<Vec<u8>>) {
        match b {
            None => self.u8(0),
            Some(b) => {
                self.u8(1);
                self.bytes(b);
            }
        }
    }
    pub(super) fn child(&mut self, c: BspChild) {
        match c {
            BspChild::Node(n) => {
                self.u8(0);
                self.u32(n);
            }
            BspChild::Leaf(l) => {
                self.u8(1);
                self.u32(l);
            }
        }
    }
}

pub(super) struct R<'a> {
    pub(super) b: &'a [u8],
    pub(super) pos: usize,
    /// The file's format version (what sections hold).
    pub(super) version: u32,
}

pub(super) type Res<T> = Result<T, LvlError>;

impl<'a> R<'a> {
    pub(super) fn take(&mut self, n: usize, what: &'static str) -> Res<&'a [u8]> {
        let left = self.b.len() - self.pos;
        if n > left {
            return Err(LvlError::Truncated {
                what,
                offset: self.pos,
                needed: n,
                left,
            });
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub(super) fn u8(&mut self, what: &'static str) -> Res<u8> {
        Ok(self.take(1, what)?[0])
    }
    pub(super) fn u32(&mut self, what: &'static str) -> Res<u32> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }
    pub(super) fn u64(&mut self, what: &'static str) -> Res<u64> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().unwrap()))
    }
    pub(super) fn f32(&mut self, what: &'static str) -> Res<f32> {
        Ok(f32::from_bits(self.u32(what)?))
    }
    pub(super) fn f16(&mut self, what: &'static str) -> Res<f32> {
        let h = u16::from_le_bytes(self.take(2, what)?.try_into().unwrap());
        Ok(lanthorn_geom::half::to_f32(h))
    }
    /// A count of elements that take at least `min_size` bytes each: checked against the bytes
    /// left before anything is allocated.
    pub(super) fn count(&mut self, min_size: usize, what: &'static str) -> Res<usize> {
        let offset = self.pos;
        let n = self.u32(what)? as usize;
        let left = self.b.len() - self.pos;
        let needed = n.saturating_mul(min_size.max(1));
        if needed > left {
            return Err(LvlError::Truncated {
                what,
                offset,
                needed,
                left,
            });
        }
        Ok(n)
    }
    pub(super) fn flag(&mut self, what: &'static str) -> Res<bool> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(LvlError::Invalid(format!(
                "{what}: option tag {v} at byte {} (expected 0 or 1)",
                self.pos - 1
            ))),
        }
    }
    pub(super) fn vec2(&mut self, what: &'static str) -> Res<Vec2> {
        Ok(Vec2::new(self.f32(what)?, self.f32(what)?))
    }
    pub(super) fn vec3(&mut self, what: &'static str) -> Res<Vec3> {
        Ok(Vec3::new(self.f32(what)?, self.f32(what)?, self.f32(what)?))
    }
    pub(super) fn plane(&mut self, what: &'static str) -> Res<Plane> {
        Ok(Plane {
            normal: self.vec3(what)?,
            dist: self.f32(what)?,
        })
    }
    pub(super) fn aabb(&mut self, what: &'static str) -> Res<Aabb> {
        Ok(Aabb {
            min: self.vec3(what)?,
            max: self.vec3(what)?,
        })
    }
    pub(super) fn bytes(&mut self, what: &'static str) -> Res<Vec<u8>> {
        let n = self.count(1, what)?;
        Ok(self.take(n, what)?.to_vec())
    }
    pub(super) fn str(&mut self, what: &'static str) -> Res<String> {
        let offset = self.pos;
        String::from_utf8(self.bytes(what)?)
            .map_err(|_| LvlError::Invalid(format!("{what} at byte {offset} is not UTF-8")))
    }
    pub(super) fn u32s(&mut self, what: &'static str) -> Res<Vec<u32>> {
        let n = self.count(4, what)?;
        (0..n).map(|_| self.u32(what)).collect()
    }
    pub(super) fn opt_bytes(&mut self, what: &'static str) -> Res<Option<Vec<u8>>> {
        Ok(if self.flag(what)? {
            Some(self.bytes(what)?)
        } else {
            None
        })
    }
    pub(super) fn child(&mut self, what: &'static str) -> Res<BspChild> {
        let tag = self.u8(what)?;
        let v = self.u32(what)?;
        match tag {
            0 => Ok(BspChild::Node(v)),
            1 => Ok(BspChild::Leaf(v)),
            t => Err(LvlError::Invalid(format!(
                "{what}: BSP child tag {t} (expected 0 or 1)"
            ))),
        }
    }
}
