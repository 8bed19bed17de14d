//! One run of the check: the truth from each eye, each method against it, and the evidence of
//! a miss.

use super::MethodTotals;
use super::VisCheckOptions;
use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::overdraw::{FragmentCounter, OverdrawCounter};
use crate::render::pass::{FrameInputs, Pass};
use crate::render::settings::FrameSettings;
use crate::render::target::FrameTarget;
use crate::render::world::{IdFrame, IdImages, OctagonClip, SurfaceTests, WorldPass};
use crate::render::Gpu;
use crate::vis::{CullMode, Culler, VisibleSet};

use super::holes::{HoleView, Holes, Sight};

/// The overdraw counters of a check.
pub(super) struct Counters {
    pub(super) depth_tested: OverdrawCounter,
    pub(super) rasterized: Option<FragmentCounter>,
    pub(super) target: FrameTarget,
}

impl Counters {
    /// Counts what `world` has prepared for `total`'s method: portal in every octagon mode
    /// (and by the pipeline statistics), the others with clip distances; over `covered`
    /// pixels.
    fn count(&self, gpu: &Gpu, world: &WorldPass, total: &mut MethodTotals, covered: u64) {
        if covered == 0 {
            return;
        }
        let portal = total.method == CullMode::Portal.name();
        for (i, clip) in OctagonClip::ALL.into_iter().enumerate() {
            if i > 0 && !portal {
                break;
            }
            if let Some(n) = self.depth_tested.count(gpu, world, clip) {
                total.overdraw[i].push(n.fragments as f64 / covered as f64);
            }
        }
        if let (true, Some(counter)) = (portal, &self.rasterized) {
            let n = counter.count(gpu, world, &self.target);
            total.rasterized.push(n as f64 / covered as f64);
        }
    }
}

/// One eye of the run.
pub(super) struct View<'a> {
    pub(super) index: usize,
    pub(super) spec: &'a CameraSpec,
    pub(super) camera: Camera,
    pub(super) settings: FrameSettings,
}

/// What the unculled truth shows from one eye: its id images in both cell orders, the
/// surfaces that show in both, their triangles and the pixels covered.
pub(super) struct Truth {
    pub(super) images: IdImages,
    pub(super) reversed: IdImages,
    pub(super) seen: Vec<bool>,
    pub(super) visible_tris: u64,
    pub(super) covered: u64,
}

/// The GPU side of a run: the world pass, the id frame, the fragment counters.
pub(super) struct Check<'a> {
    pub(super) gpu: &'a Gpu,
    pub(super) level: &'a Level,
    pub(super) opts: &'a VisCheckOptions,
    pub(super) world: WorldPass,
    pub(super) frame: IdFrame,
    pub(super) counters: Option<Counters>,
    /// Triangles per surface.
    pub(super) triangles: Vec<u64>,
    /// What a method sees, and every cell (the truth): kept warm between views.
    pub(super) vis: VisibleSet,
    pub(super) everything: VisibleSet,
    /// Which pixels the truth shows only through holes in the level.
    pub(super) holes: Holes,
}

impl Check<'_> {
    /// The truth draws every surface of every cell in every view (and the views through every
    /// mirror and teleporter in sight); the methods cull.
    pub(super) fn truth(&mut self, culler: &mut Culler, view: &View) -> Truth {
        let (gpu, n) = (self.gpu, self.level.surfaces.len());
        let settings = FrameSettings {
            surface_tests: SurfaceTests::NONE,
            ..view.settings
        };
        let everything = &mut self.everything;
        super::super::cull_view(self.level, culler, &view.camera, &view.settings, everything);
        self.world.prepare(
            gpu,
            &FrameInputs::view((&view.camera, self.opts.size), everything, &settings),
        );
        let images = self.frame.render(gpu, &self.world);
        // Depth ties between different surfaces (a hidden wall meeting a visible one along a
        // shared edge, coincident faces) go to whichever is drawn last: the truth is drawn in
        // both cell orders, a surface is visible when it shows in both, and a pixel of a method
        // is right when it matches either.
        everything.cells.reverse();
        everything.objects.reverse();
        self.world.prepare(
            gpu,
            &FrameInputs::view((&view.camera, self.opts.size), everything, &settings),
        );
        let reversed = self.frame.render(gpu, &self.world);
        let mut seen: Vec<bool> = visible_ids(&images, n)
            .iter()
            .zip(visible_ids(&reversed, n))
            .map(|(a, b)| *a && b)
            .collect();
        // A surface whose plane holds the eye, or that faces away from it, covers no area of
        // the view: a pixel of it is the rasterizer's rounding of a line (an eye on a wall's
        // plane, or a hair behind a floor far away), not a sight. Only where every view is the
        // camera's: a mirror's view sees surfaces from another eye.
        let hv = HoleView::new(&view.camera, self.opts.size, &culler.links.origins);
        for (s, seen) in seen.iter_mut().enumerate() {
            *seen &= self.holes.faces_eye(self.level, &hv, s as u32 + 1);
        }
        let visible_tris = seen
            .iter()
            .zip(&self.triangles)
            .filter(|(s, _)| **s)
            .map(|(_, t)| *t)
            .sum();
        let covered = images
            .solid
            .iter()
            .zip(&images.liquid)
            .filter(|(s, l)| **s != 0 || **l != 0)
            .count() as u64;
        Truth {
            images,
            reversed,
            seen,
            visible_tris,
            covered,
        }
    }

    /// Culls `view` with `culler` and adds what it missed, drew wrong and submitted to `total`.
    pub(super) fn method(
        &mut self,
        culler: &mut Culler,
        total: &mut MethodTotals,
        view: &View,
        truth: &Truth,
        cut_wall: &mut bool,
    ) -> anyhow::Result<()> {
        let (gpu, level, n) = (self.gpu, self.level, self.level.surfaces.len());
        let vis = &mut self.vis;
        super::super::cull_view(level, culler, &view.camera, &view.settings, vis);
        // Submitted is what the draw list sends (every copy, objects and views too).
        let settings = FrameSettings {
            surface_tests: super::super::surface_tests(culler.mode),
            ..view.settings
        };
        self.world.prepare(
            gpu,
            &FrameInputs::view((&view.camera, self.opts.size), vis, &settings),
        );
        let mut submitted = vec![false; n];
        for s in self.world.drawn_surfaces() {
            submitted[s as usize] = true;
        }
        let missed = truth
            .seen
            .iter()
            .zip(&submitted)
            .filter(|(s, sub)| **s && !**sub)
            .count() as u64;
        let submitted_tris = self.world.stats.triangles;
        let img = self.frame.render(gpu, &self.world);
        if let Some(c) = &self.counters {
            c.count(gpu, &self.world, total, truth.covered);
        }
        let hv = HoleView::new(&view.camera, self.opts.size, &culler.links.origins);
        let tie = |i: usize, drawn: u32, shown: u32| {
            self.holes.depth_tie(level, &hv, i, drawn, shown)
                || self.holes.edge_tie(level, &hv, i, drawn, shown)
        };
        let (solid, solid_ties) =
            differing_pixels(&img.solid, &truth.images.solid, &truth.reversed.solid, tie);
        let (liquid, liquid_ties) = differing_pixels(
            &img.liquid,
            &truth.images.liquid,
            &truth.reversed.liquid,
            tie,
        );
        let differing = solid + liquid;
        total.depth_ties += solid_ties + liquid_ties;
        let tied = match missed > 0 {
            true => tied_misses(&img, truth, &submitted, tie),
            false => vec![false; n],
        };
        let tied_count = tied.iter().filter(|&&t| t).count() as u64;
        total.tied_misses += tied_count;
        if culler.mode == CullMode::Portal {
            *cut_wall = !culler.cut.is_empty();
        }
        let visible_cells = vis.cells.len();
        let missed = missed - tied_count;
        let holes = if missed + differing > 0 {
            let counted = (submitted.as_slice(), tied.as_slice());
            self.through_holes(view, &culler.links.origins, truth, &img, counted)
        } else {
            (0, 0, 0)
        };
        total.through_holes.0 += holes.0;
        total.through_holes.1 += holes.1;
        total.grazes += holes.2;
        let sky_eye = culler.tracker.cell().is_some_and(|c| {
            level.cells[c as usize].flags & crate::level::cell_flags::SKY_LEAF != 0
        });
        let (missed, differing) = (missed - holes.0 - holes.2, differing - holes.1);
        total.add_view(
            (missed, differing),
            (submitted_tris, truth.visible_tris),
            (*cut_wall, sky_eye),
            culler,
            visible_cells,
        );
        if missed + differing > 0 && total.worst.len() < 10 {
            total.worst.push((*view.spec, missed, differing));
            if let Some(dir) = &self.opts.dump {
                let evidence = Evidence {
                    spec: view.spec,
                    size: self.opts.size,
                    truth: &truth.images,
                    culled: &img,
                    seen: &truth.seen,
                    submitted: &submitted,
                };
                evidence.write(dir, total.method, view.index, level)?;
            }
        }
        Ok(())
    }
}

impl Check<'_> {
    /// Of this view's missed surfaces and differing pixels, those the truth shows only through
    /// holes in the level (`holes`; pixels of surfaces edge-on or facing away too), and the
    /// missed surfaces it shows only as grazes of their edges: (surfaces, pixels, grazed
    /// surfaces).
    fn through_holes(
        &self,
        view: &View,
        origins: &[glam::Vec3],
        truth: &Truth,
        img: &IdImages,
        (submitted, tied): (&[bool], &[bool]),
    ) -> (u64, u64, u64) {
        let hv = HoleView::new(&view.camera, self.opts.size, origins);
        let through = |i: usize, id: u32| self.holes.through_solid(self.level, &hv, i, id);
        let layers = [
            (&img.solid, &truth.images.solid, &truth.reversed.solid),
            (&img.liquid, &truth.images.liquid, &truth.reversed.liquid),
        ];
        let mut solid_apart = vec![false; img.solid.len()];
        let mut pixels = 0;
        for (layer, (culled, a, b)) in layers.into_iter().enumerate() {
            for i in 0..culled.len() {
                let id = if a[i] != 0 { a[i] } else { b[i] };
                let apart = |id| through(i, id) || !self.holes.faces_eye(self.level, &hv, id);
                let tie = || {
                    let t = |other| self.holes.depth_tie(self.level, &hv, i, culled[i], other);
                    culled[i] != 0 && a[i] != 0 && (t(a[i]) || t(b[i]))
                };
                if culled[i] == a[i] || culled[i] == b[i] {
                    continue;
                }
                // Liquid the truth has none of here lies behind the truth's solid surface, so
                // it shows because that surface is missing: apart when the surface is.
                let hidden_liquid = layer == 1 && id == 0;
                let counted_apart = match hidden_liquid {
                    true => solid_apart[i],
                    false => id != 0 && apart(id) && !tie(),
                };
                if layer == 0 {
                    solid_apart[i] = counted_apart;
                }
                pixels += u64::from(counted_apart);
            }
        }
        let missed = |id: u32| {
            let s = id as usize - 1;
            truth.seen.get(s).is_some_and(|&v| v) && !submitted[s] && !tied[s]
        };
        // A missed surface counts apart when none of its pixels is a sight through open space:
        // as a hole when none is seen through open space at all, else as a graze.
        let (mut open, mut not_solid) =
            (vec![false; submitted.len()], vec![false; submitted.len()]);
        for ids in [
            &truth.images.solid,
            &truth.images.liquid,
            &truth.reversed.solid,
            &truth.reversed.liquid,
        ] {
            for (i, &id) in ids.iter().enumerate() {
                if id == 0 || !missed(id) || open[id as usize - 1] {
                    continue;
                }
                let sight = self.holes.sight(self.level, &hv, i, id);
                open[id as usize - 1] = sight == Sight::Open;
                not_solid[id as usize - 1] |= sight != Sight::ThroughSolid;
            }
        }
        let apart = |graze: bool| {
            (1..=submitted.len() as u32)
                .filter(|&id| missed(id) && !open[id as usize - 1])
                .filter(|&id| not_solid[id as usize - 1] == graze)
                .count() as u64
        };
        (apart(false), pixels, apart(true))
    }
}

/// One view where a method missed: the truth and culled id images and what was missed.
struct Evidence<'a> {
    spec: &'a CameraSpec,
    size: (u32, u32),
    truth: &'a IdImages,
    culled: &'a IdImages,
    seen: &'a [bool],
    submitted: &'a [bool],
}

impl Evidence<'_> {
    /// `DIR/METHOD-VIEW-truth.png` and `-culled.png` (solid ids in false colour, differing
    /// pixels of the culled image in white) and `-missed.json` (the camera, the missed
    /// surfaces and the cells that list them).
    fn write(
        &self,
        dir: &std::path::Path,
        method: &str,
        view: usize,
        level: &Level,
    ) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        let stem = dir.join(format!("{method}-{view:03}"));
        let colour = |id: u32| -> [u8; 4] {
            let h = id.wrapping_mul(2654435761);
            if id == 0 {
                [0, 0, 0, 255]
            } else {
                [
                    (h >> 24) as u8 | 64,
                    (h >> 16) as u8 | 64,
                    (h >> 8) as u8 | 64,
                    255,
                ]
            }
        };
        let image = |ids: &[u32], mark: Option<&[u32]>| {
            let mut img = image::RgbaImage::new(self.size.0, self.size.1);
            for (i, px) in img.pixels_mut().enumerate() {
                let differs = mark.is_some_and(|t| t[i] != ids[i]);
                px.0 = if differs { [255; 4] } else { colour(ids[i]) };
            }
            img
        };
        super::super::capture::save_png(
            &image(&self.truth.solid, None),
            &stem.with_extension("truth.png"),
        )?;
        let culled = image(&self.culled.solid, Some(&self.truth.solid));
        super::super::capture::save_png(&culled, &stem.with_extension("culled.png"))?;
        let missed: Vec<serde_json::Value> = (0..self.seen.len())
            .filter(|&s| self.seen[s] && !self.submitted[s])
            .map(|s| {
                let cells: Vec<usize> = (0..level.cells.len())
                    .filter(|&c| level.cells[c].surfaces.contains(&(s as u32)))
                    .collect();
                serde_json::json!({ "surface": s, "cells": cells })
            })
            .collect();
        let c = self.spec;
        let json = serde_json::json!({
            "camera": [c.position.x, c.position.y, c.position.z, c.yaw, c.pitch],
            "missed": missed,
        });
        let text = serde_json::to_string_pretty(&json)?;
        crate::files::write_atomically(&stem.with_extension("missed.json"), text.as_bytes())?;
        Ok(())
    }
}

/// Pixels that match neither order of the truth: (differing, ties), a tie being a pixel whose
/// drawn surface lies at the truth's depth or where both cover it only by rounding their
/// outlines (`tie`), which is not counted as differing.
fn differing_pixels(
    img: &[u32],
    truth: &[u32],
    reversed: &[u32],
    tie: impl Fn(usize, u32, u32) -> bool,
) -> (u64, u64) {
    let (mut differing, mut ties) = (0, 0);
    for (i, (&p, (&a, &b))) in img.iter().zip(truth.iter().zip(reversed)).enumerate() {
        if p != a && p != b {
            match p != 0 && a != 0 && (tie(i, p, a) || tie(i, p, b)) {
                true => ties += 1,
                false => differing += 1,
            }
        }
    }
    (differing, ties)
}

/// Per surface, whether the truth shows it, the method did not submit it, and at every pixel
/// where either order of the truth shows it the method's image shows what the other order
/// does or a surface that ties with it (`tie`): leaving it out changed no pixel but by rounding.
fn tied_misses(
    img: &IdImages,
    truth: &Truth,
    submitted: &[bool],
    tie: impl Fn(usize, u32, u32) -> bool,
) -> Vec<bool> {
    let missed = |id: u32| {
        let s = (id as usize).wrapping_sub(1);
        id != 0 && truth.seen.get(s).is_some_and(|&v| v) && !submitted[s]
    };
    let (mut shown, mut untied) = (vec![false; submitted.len()], vec![false; submitted.len()]);
    let layers = [
        (&img.solid, &truth.images.solid, &truth.reversed.solid),
        (&img.liquid, &truth.images.liquid, &truth.reversed.liquid),
    ];
    for (culled, a, b) in layers {
        for i in 0..culled.len() {
            let p = culled[i];
            for id in [a[i], b[i]].into_iter().filter(|&id| missed(id)) {
                shown[id as usize - 1] = true;
                let fine = p == a[i] || p == b[i] || (p != 0 && tie(i, p, id));
                untied[id as usize - 1] |= !fine;
            }
        }
    }
    shown.iter().zip(&untied).map(|(&s, &u)| s && !u).collect()
}

fn visible_ids(img: &IdImages, n: usize) -> Vec<bool> {
    let mut seen = vec![false; n];
    for &id in img.solid.iter().chain(img.liquid.iter()) {
        if id > 0 && ((id - 1) as usize) < n {
            seen[(id - 1) as usize] = true;
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four pixels; surfaces 1..=3 (ids 2..=4) seen in the truth, none submitted.
    fn case(culled: [u32; 4]) -> Vec<bool> {
        let ids = |solid: [u32; 4]| IdImages {
            solid: solid.to_vec(),
            liquid: vec![0; 4],
        };
        let truth = Truth {
            images: ids([2, 3, 4, 1]),
            reversed: ids([2, 3, 4, 4]),
            seen: vec![true; 4],
            visible_tris: 0,
            covered: 4,
        };
        // Pixel 0 ties surface id 2 with id 1 only; pixel 2 ties id 4 with id 1.
        let tie = |i: usize, p: u32, id: u32| p == 1 && ((i, id) == (0, 2) || (i, id) == (2, 4));
        let submitted = [true, false, false, false];
        tied_misses(&ids(culled), &truth, &submitted, tie)
    }

    #[test]
    fn a_miss_is_tied_only_where_every_pixel_of_it_ties_or_matches_the_other_order() {
        // Id 2 shows only at pixel 0, drawn as its tie; id 3 at pixel 1, drawn as nothing;
        // id 4 at pixels 2 (a tie) and 3, where the other order shows id 1, which is drawn.
        assert_eq!(case([1, 0, 1, 1]), [false, true, false, true]);
        // Pixel 3 drawn as nothing: id 4 is a miss there.
        assert_eq!(case([1, 0, 1, 0]), [false, true, false, false]);
        // Pixel 0 drawn as nothing: no tie, id 2 is a miss.
        assert_eq!(case([0, 0, 1, 1]), [false, false, false, true]);
    }
}
