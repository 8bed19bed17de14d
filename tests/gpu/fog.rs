//! The world's aerial-perspective fog (`render::fog`): the pillar of the shadow tests,
//! about 1,500 units off over flat terrain, drawn with the terrain's fog and with its strength set to
//! 0. Oracle: every pillar pixel with the fog is the one without it moved towards the fog's
//! colour — the terrain's sky gradient in the pixel's direction, sRGB-encoded — by the terrain's
//! own exp² share at the distance the ray meets the pillar (`TerrainShading::fog_amount`, the
//! CPU twin of the terrain shader's fog).

use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::terrain::{ClipmapConfig, ClipmapTerrain, Heightmap, TerrainShading};

use crate::bloom::encode;
use crate::shadows::{ray_box, PILLAR_MAX, PILLAR_MIN, PILLAR_SCENE};
use crate::support::gpu;
use crate::terrain::pixel_direction;

const SIZE: (u32, u32) = (640, 360);

#[test]
fn outdoor_world_surfaces_take_the_terrains_fog() {
    let Some(gpu) = gpu() else { return };
    let scene = lanthorn::compile::scene::parse(PILLAR_SCENE).unwrap();
    let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    let hm = Heightmap::flat(256).with_scales(32.0, 1.0);
    let cfg = ClipmapConfig::for_heightmap(&hm);
    let shading = TerrainShading::for_heightmap(&hm, &cfg);
    let terrain = ClipmapTerrain::new(hm, cfg).unwrap();
    let spec = CameraSpec {
        // From above: every pillar point lies below the horizon, where the gradient is the
        // horizon's colour (the per-vertex colour is then exact; the share varies little
        // across a face, so its interpolation is too).
        position: Vec3::new(-1300.0, -300.0, 800.0),
        yaw: 13.0,
        pitch: -27.7,
    };
    let cam = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    let mut session = lanthorn::app::session::Session::new(
        gpu,
        &level,
        Some(terrain),
        SIZE,
        lanthorn::vis::CullMode::Portal,
    );
    session.settle(gpu, &cam, 0.0);
    session.frame(gpu, &cam, 0.0);
    let fogged = session.read_color(gpu);
    let t = session.renderer.terrain.as_mut().unwrap();
    t.draw.shading.fog_strength = 0.0;
    session.frame(gpu, &cam, 0.0);
    let clear = session.read_color(gpu);
    let (mut checked, mut worst, mut moved) = (0, 0.0f32, 0.0f32);
    for y in 2..SIZE.1 - 2 {
        for x in 2..SIZE.0 - 2 {
            // Pillar pixels away from its outline (the pixel and its neighbours all hit it).
            let hit = |x: u32, y: u32| {
                let d = pixel_direction(&cam, SIZE, x, y);
                ray_box(cam.position, d, PILLAR_MIN, PILLAR_MAX).map(|t| (d, t))
            };
            let Some((dir, dist)) = hit(x, y) else {
                continue;
            };
            if [(x - 2, y), (x + 2, y), (x, y - 2), (x, y + 2)]
                .iter()
                .any(|&(a, b)| hit(a, b).is_none())
            {
                continue;
            }
            let share = shading.fog_amount(dist);
            let sky = Vec3::from(shading.sky_horizon)
                .lerp(Vec3::from(shading.sky_zenith), dir.z.max(0.0).powf(0.45));
            for k in 0..3 {
                let off = clear.get_pixel(x, y)[k] as f32;
                let want = off + share * (encode(sky[k]) - off);
                let got = fogged.get_pixel(x, y)[k] as f32;
                worst = worst.max((got - want).abs());
                moved = moved.max((got - off).abs());
            }
            checked += 1;
        }
    }
    eprintln!(
        "fog: {checked} pillar pixels, share {:.3} at 1,500 units, worst {worst:.2} of 255, moved up to {moved:.1}",
        shading.fog_amount(1500.0),
    );
    assert!(checked > 300, "only {checked} pillar pixels");
    assert!(moved > 20.0, "the fog moved the pillar by only {moved}");
    assert!(worst <= 1.5, "worst {worst} of 255 from the fog's formula");
}
