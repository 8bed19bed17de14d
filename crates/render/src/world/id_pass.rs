//! Surface-id frames: the vis-check ground truth. Each pixel holds the id + 1 of the surface that
//! covers it (0 = nothing). Liquids that hide what is under them (`WorldPass::liquids_hide`:
//! drawn opaque, and the flow stops at the portals they cover) are drawn with the solid
//! surfaces; others (in a level with glows) go to a second target, depth-tested against them.

use super::draws::{ViewClass, ViewLink};
use super::mesh::SurfaceKind;
use super::pipelines::{
    make_pipeline, stencil, stencil_equal, CameraShading, PipelineOutput, SkyShading,
};
use super::WorldPass;
use crate::gpu::Gpu;
use crate::pass::{
    begin, Attachment, FrameInputs, Load, Pass, PassAttachments, PassTarget, Prepared, Scope,
};
use crate::target::read_ids;
use lanthorn_level::Level;

/// The id targets of one frame: solid ids, liquid ids and the depth both test against; and the
/// id pass's pipelines, made on first use for the world drawn (again for another world or
/// variant).
pub struct IdFrame {
    /// Width and height in pixels.
    pub size: (u32, u32),
    pipelines: std::cell::RefCell<Option<(u64, std::rc::Rc<IdPipelines>)>>,
    depth_format: wgpu::TextureFormat,
    solid: wgpu::Texture,
    liquid: wgpu::Texture,
    solid_view: wgpu::TextureView,
    liquid_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
}

/// The two id images of one frame, row-major, top row first.
pub struct IdImages {
    /// Per pixel, the id + 1 of the opaque or sky surface in front (0: nothing).
    pub solid: Vec<u32>,
    /// Per pixel, the id + 1 of the liquid surface in front of the solid ones (0: none).
    pub liquid: Vec<u32>,
}

impl IdFrame {
    /// Id and depth targets for frames of `size` pixels; the pipelines come on first use.
    pub fn create(gpu: &Gpu, size: (u32, u32)) -> IdFrame {
        let tex =
            |label, format, usage| crate::target::target_texture(gpu, label, size, format, usage);
        let ids = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let solid = tex("ids solid", wgpu::TextureFormat::R32Uint, ids);
        let liquid = tex("ids liquid", wgpu::TextureFormat::R32Uint, ids);
        let depth = tex(
            "ids depth",
            gpu.id_depth_format(),
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        IdFrame {
            size,
            pipelines: Default::default(),
            depth_format: gpu.id_depth_format(),
            solid_view: solid.create_view(&Default::default()),
            liquid_view: liquid.create_view(&Default::default()),
            depth_view: depth.create_view(&Default::default()),
            solid,
            liquid,
        }
    }

    /// Draws what `world` has prepared (its visible set and octagons) as ids — the solid
    /// pass, then the liquid pass — submits, and reads both images back.
    pub fn render(&self, gpu: &Gpu, world: &WorldPass) -> IdImages {
        let pipelines = self.pipelines_for(gpu, world);
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for layer in [IdLayer::Solid, IdLayer::Liquid] {
            let pass = IdPass {
                world,
                layer,
                pipelines: &pipelines,
            };
            let scope = pass.scope();
            let mut render_pass = begin(&mut enc, scope.name, &pass.attachments(), self, None);
            pass.record(&mut render_pass);
        }
        gpu.queue.submit([enc.finish()]);
        IdImages {
            solid: read_ids(gpu, &self.solid),
            liquid: read_ids(gpu, &self.liquid),
        }
    }

    /// The id pipelines for `world`'s shading, made when it is not the last one drawn.
    fn pipelines_for(&self, gpu: &Gpu, world: &WorldPass) -> std::rc::Rc<IdPipelines> {
        let mut cache = self.pipelines.borrow_mut();
        let stamp = world.shading_stamp();
        match &*cache {
            Some((s, p)) if *s == stamp => p.clone(),
            _ => {
                let made =
                    std::rc::Rc::new(IdPipelines::new(&gpu.device, world, self.depth_format));
                *cache = Some((stamp, made.clone()));
                made
            }
        }
    }
}

impl PassTarget for IdFrame {
    fn view(&self, attachment: Attachment) -> &wgpu::TextureView {
        match attachment {
            Attachment::LiquidIds => &self.liquid_view,
            Attachment::IdDepth | Attachment::FrameDepth => &self.depth_view,
            _ => &self.solid_view,
        }
    }

    /// 0: no surface.
    fn clear_color(&self, _: Attachment) -> wgpu::Color {
        wgpu::Color::TRANSPARENT
    }

    /// Which view owns each pixel (see `WorldPass::record_ids`).
    fn has_stencil(&self, attachment: Attachment) -> bool {
        matches!(attachment, Attachment::IdDepth | Attachment::FrameDepth)
    }
}

/// One id layer of what the world pass prepared, drawn into the id frame.
struct IdPass<'a> {
    world: &'a WorldPass,
    layer: IdLayer,
    pipelines: &'a IdPipelines,
}

impl Pass for IdPass<'_> {
    fn scope(&self) -> Scope {
        match self.layer {
            IdLayer::Solid => Scope {
                name: "ids solid",
                prepare: "ids solid prepare",
                record: "ids solid record",
            },
            IdLayer::Liquid => Scope {
                name: "ids liquid",
                prepare: "ids liquid prepare",
                record: "ids liquid record",
            },
        }
    }

    /// The solid layer starts the depth; the liquids test against it.
    fn attachments(&self) -> PassAttachments {
        match self.layer {
            IdLayer::Solid => PassAttachments {
                color: (Attachment::SolidIds, Load::Clear),
                depth: Some((Attachment::IdDepth, Load::Clear)),
            },
            IdLayer::Liquid => PassAttachments {
                color: (Attachment::LiquidIds, Load::Clear),
                depth: Some((Attachment::IdDepth, Load::Keep)),
            },
        }
    }

    /// The world pass prepared the draws.
    fn prepare(&mut self, _: &Gpu, _: &FrameInputs) -> Prepared {
        Prepared::Recorded
    }

    /// The prepared draws as ids (surface id + 1 per pixel), view after view: each view's
    /// surfaces pass the stencil only where it holds the view's mark, and the solid layer then
    /// marks where each of the view's portals is the nearest thing.
    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        let marks = view_marks(&self.world.draw_list().view_links);
        for view in 0..marks.len() {
            self.world.bind_mesh(pass, false);
            self.record_view_ids(pass, view, marks[view]);
            if self.layer == IdLayer::Solid {
                self.mark_portals(pass, &marks, view);
            }
        }
    }
}

/// Which surfaces the id pass draws: liquids that do not hide what is behind them (a level with
/// glows) get a target of their own (depth-tested against, but never writing, the opaque
/// depth); those that do are drawn with the solid surfaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdLayer {
    /// Opaque, sky and fence surfaces (and liquids that hide), writing the depth.
    Solid,
    /// Liquid surfaces that do not hide, tested against the solid depth.
    Liquid,
}

impl IdPass<'_> {
    /// The surfaces of `view` of one layer, where the stencil holds `mark`.
    fn record_view_ids(&self, pass: &mut wgpu::RenderPass<'_>, view: usize, mark: u32) {
        let (list, pipes, layer) = (self.world.draw_list(), self.pipelines, self.layer);
        let class = match view.checked_sub(1).map(|i| list.view_links[i].mirrored) {
            None => ViewClass::Camera,
            Some(false) => ViewClass::Portal,
            Some(true) => ViewClass::Mirrored,
        };
        // Mirrored triangles wind the other way.
        let mirrored = (class == ViewClass::Mirrored) as usize;
        pass.set_stencil_reference(mark);
        let kinds: &[SurfaceKind] = match (layer, self.world.liquids_hide()) {
            (IdLayer::Solid, false) => &[SurfaceKind::Opaque, SurfaceKind::Sky, SurfaceKind::Fence],
            (IdLayer::Solid, true) => &SurfaceKind::ALL,
            (IdLayer::Liquid, false) => &[SurfaceKind::Liquid],
            (IdLayer::Liquid, true) => &[],
        };
        for &kind in kinds {
            pass.set_pipeline(&pipes.surfaces[mirrored * ID_KINDS.len() + id_kind(kind)]);
            for c in list.commands_of(class, kind) {
                if list.records[c.first_instance as usize].view as usize != view {
                    continue;
                }
                pass.draw_indexed(
                    c.first_index..c.first_index + c.index_count,
                    0,
                    c.first_instance..c.first_instance + 1,
                );
            }
        }
    }

    /// After `view`'s solid surfaces: each view seen from it gets its mark where its portal
    /// is the nearest thing, with the depth there back at the far plane and no id (the
    /// portal is a hole into that view, not a surface).
    fn mark_portals(&self, pass: &mut wgpu::RenderPass<'_>, marks: &[u32], view: usize) {
        let pipes = self.pipelines;
        let Some(vertices) = &pipes.portal_vertices else {
            return;
        };
        let links = &self.world.draw_list().view_links;
        let triangles = self.world.portal_triangles();
        // Views of `view` with a mark of their own (the flow may open one portal twice).
        let children = || {
            links
                .iter()
                .enumerate()
                .filter(move |(i, l)| l.parent as usize == view && marks[i + 1] == *i as u32 + 1)
        };
        pass.set_vertex_buffer(0, vertices.slice(..));
        // The portals' depth first, so where two overlap the nearer one takes the pixel.
        pass.set_pipeline(&pipes.portal_depth);
        pass.set_stencil_reference(marks[view]);
        for (_, link) in children() {
            let range = triangles.vertices(link.portal);
            pass.draw(range, view as u32..view as u32 + 1);
        }
        for (i, link) in children() {
            pass.set_pipeline(&pipes.portal_pending);
            pass.set_stencil_reference(marks[view] | PENDING);
            let range = triangles.vertices(link.portal);
            pass.draw(range, view as u32..view as u32 + 1);
            pass.set_pipeline(&pipes.portal_open);
            pass.set_stencil_reference(i as u32 + 1);
            pass.draw(0..3, 0..1);
        }
    }
}

impl IdPipelines {
    /// The id pipelines of `world`'s shading, over a depth-stencil of `depth_format`.
    fn new(device: &wgpu::Device, world: &WorldPass, depth_format: wgpu::TextureFormat) -> Self {
        let output = PipelineOutput::Ids(depth_format);
        let (module, layout) = world.shader();
        let surfaces = std::array::from_fn(|i| {
            let kind = ID_KINDS[i % ID_KINDS.len()];
            let class = match i < ID_KINDS.len() {
                true => ViewClass::Camera,
                false => ViewClass::Mirrored,
            };
            let back_faces = world.back_faces_occlude() && kind != SurfaceKind::Liquid;
            make_pipeline(
                device,
                layout,
                module,
                kind,
                output,
                class,
                back_faces,
                CameraShading::Own {
                    sky: SkyShading {
                        skybox: false,
                        clouds: false,
                    },
                },
            )
        });
        let marks = MarkPipelines {
            device,
            layout,
            module,
            depth_format,
        };
        IdPipelines {
            surfaces,
            portal_depth: marks.portal_depth(),
            portal_pending: marks.portal_pending(),
            portal_open: marks.portal_open(),
            portal_vertices: world.portal_triangles().upload(device),
        }
    }
}

/// The kinds of surfaces with pipelines of their own in the id pass (sky draws with
/// opaque's: ids do not shade).
const ID_KINDS: [SurfaceKind; 3] = [SurfaceKind::Opaque, SurfaceKind::Fence, SurfaceKind::Liquid];

/// The id pipeline slot of `kind` in `ID_KINDS`.
fn id_kind(kind: SurfaceKind) -> usize {
    match kind {
        SurfaceKind::Opaque | SurfaceKind::Sky => 0,
        SurfaceKind::Fence => 1,
        SurfaceKind::Liquid => 2,
    }
}

/// The id pass's pipelines, made on first use.
struct IdPipelines {
    /// [unmirrored, mirrored] × `ID_KINDS`.
    surfaces: [wgpu::RenderPipeline; 2 * ID_KINDS.len()],
    portal_depth: wgpu::RenderPipeline,
    portal_pending: wgpu::RenderPipeline,
    portal_open: wgpu::RenderPipeline,
    /// `PortalTriangles` on the GPU (`None`: the level has no mirror or teleporter).
    portal_vertices: Option<wgpu::Buffer>,
}

/// The stencil value each view's pixels hold: its index, or that of the first view through
/// the same portal from the same parent (the flow may reach one portal along two paths; both
/// views show the same space, where that portal shows).
fn view_marks(links: &[ViewLink]) -> Vec<u32> {
    let mut marks = vec![0];
    for (i, link) in links.iter().enumerate() {
        let first = links[..i]
            .iter()
            .position(|l| l.parent == link.parent && l.portal == link.portal)
            .unwrap_or(i);
        marks.push(first as u32 + 1);
    }
    marks
}

/// Set on a pixel of a portal while it waits for its view's mark (marks stay below it:
/// `MAX_VIEWS` ≤ 127).
const PENDING: u32 = 0x80;

/// The three steps that open a view where its portal shows.
struct MarkPipelines<'a> {
    device: &'a wgpu::Device,
    layout: &'a wgpu::PipelineLayout,
    module: &'a wgpu::ShaderModule,
    depth_format: wgpu::TextureFormat,
}

impl MarkPipelines<'_> {
    /// The portals' depth, in their parent view's pixels (stencil = the parent's mark).
    fn portal_depth(&self) -> wgpu::RenderPipeline {
        self.make(
            "ids portal depth",
            ("vs_portal_mark", "fs_portal_mark"),
            (wgpu::CompareFunction::GreaterEqual, true),
            stencil_equal(),
        )
    }

    /// One portal's pixels that kept its depth (it is the nearest there) get `PENDING` on top
    /// of the parent's mark (the reference: `PENDING | parent`).
    fn portal_pending(&self) -> wgpu::RenderPipeline {
        self.make(
            "ids portal pending",
            ("vs_portal_mark", "fs_portal_mark"),
            (wgpu::CompareFunction::Equal, false),
            stencil(
                wgpu::CompareFunction::Equal,
                wgpu::StencilOperation::Replace,
                !PENDING & 0xff,
                0xff,
            ),
        )
    }

    /// A full-screen triangle: the pending pixels get the view's mark (the reference), no
    /// surface id and the far depth, so the view beyond draws there.
    fn portal_open(&self) -> wgpu::RenderPipeline {
        self.make(
            "ids portal open",
            ("vs_far_plane", "fs_no_surface"),
            (wgpu::CompareFunction::Always, true),
            stencil(
                wgpu::CompareFunction::NotEqual,
                wgpu::StencilOperation::Replace,
                PENDING,
                0xff,
            ),
        )
    }

    fn make(
        &self,
        label: &str,
        (vertex, fragment): (&str, &str),
        (depth_compare, depth_write): (wgpu::CompareFunction, bool),
        stencil: wgpu::StencilState,
    ) -> wgpu::RenderPipeline {
        let buffers: &[Option<wgpu::VertexBufferLayout>] = if vertex == "vs_portal_mark" {
            &[Some(wgpu::VertexBufferLayout {
                array_stride: 12,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x3],
            })]
        } else {
            &[]
        };
        // Only the full-screen step writes ids (0); the marks touch depth and stencil.
        let write_mask = if vertex == "vs_far_plane" {
            wgpu::ColorWrites::ALL
        } else {
            wgpu::ColorWrites::empty()
        };
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(self.layout),
                vertex: wgpu::VertexState {
                    module: self.module,
                    entry_point: Some(vertex),
                    compilation_options: Default::default(),
                    buffers,
                },
                // Both sides: a portal is seen from either, a mirrored view winds the other way.
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: self.depth_format,
                    depth_write_enabled: Some(depth_write),
                    depth_compare: Some(depth_compare),
                    stencil,
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: self.module,
                    entry_point: Some(fragment),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: wgpu::TextureFormat::R32Uint,
                        blend: None,
                        write_mask,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}

/// Every mirror's and teleporter's polygon as triangles (fans), by portal id: what the id
/// pass marks in the stencil.
#[derive(Default)]
pub(super) struct PortalTriangles {
    vertices: Vec<[f32; 3]>,
    /// Per portal id: its vertices (empty for a portal without a transform).
    ranges: Vec<std::ops::Range<u32>>,
}

impl PortalTriangles {
    pub(super) fn build(level: &Level) -> PortalTriangles {
        let mut out = PortalTriangles::default();
        for portal in &level.portals {
            let start = out.vertices.len() as u32;
            if portal.transform.is_some() {
                for k in 1..portal.polygon.len().saturating_sub(1) {
                    for p in [portal.polygon[0], portal.polygon[k], portal.polygon[k + 1]] {
                        out.vertices.push(p.to_array());
                    }
                }
            }
            out.ranges.push(start..out.vertices.len() as u32);
        }
        out
    }

    fn vertices(&self, portal: u32) -> std::ops::Range<u32> {
        self.ranges.get(portal as usize).cloned().unwrap_or(0..0)
    }

    fn upload(&self, device: &wgpu::Device) -> Option<wgpu::Buffer> {
        use wgpu::util::DeviceExt;
        (!self.vertices.is_empty()).then(|| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("ids portal triangles"),
                contents: bytemuck::cast_slice(&self.vertices),
                usage: wgpu::BufferUsages::VERTEX,
            })
        })
    }
}
