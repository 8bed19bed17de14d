//! The GPU context: instance, adapter, device and queue, headless or for a window surface.
//! Vulkan is preferred, GL is the fallback, `WGPU_BACKEND` is honoured. The optional features
//! the design uses are requested where present and can be switched off on purpose
//! (`--disable …` or `LANTHORN_DISABLE=…`) so every fallback can be exercised on any adapter.

use std::fmt;

/// Optional features Lanthorn uses, by their command-line names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptionalFeature {
    /// Hardware clip distances for the per-draw octagon (fallback: fragment discard).
    ClipDistances,
    /// Non-zero `first_instance` in indirect draws (fallback: direct draws).
    IndirectFirstInstance,
    /// GPU timestamps per pass (fallback: no GPU times).
    TimestampQuery,
    /// Wireframe overlays (fallback: no wireframe).
    PolygonModeLine,
    /// Fragment-shader invocation counts, for overdraw (fallback: no overdraw figures).
    PipelineStatistics,
}

impl OptionalFeature {
    /// Every optional feature.
    pub const ALL: [OptionalFeature; 5] = [
        OptionalFeature::ClipDistances,
        OptionalFeature::IndirectFirstInstance,
        OptionalFeature::TimestampQuery,
        OptionalFeature::PolygonModeLine,
        OptionalFeature::PipelineStatistics,
    ];

    /// Its command-line name (`--disable`).
    pub fn name(self) -> &'static str {
        match self {
            OptionalFeature::ClipDistances => "clip-distances",
            OptionalFeature::IndirectFirstInstance => "indirect-first-instance",
            OptionalFeature::TimestampQuery => "timestamp-query",
            OptionalFeature::PolygonModeLine => "polygon-mode-line",
            OptionalFeature::PipelineStatistics => "pipeline-statistics",
        }
    }

    /// The wgpu features it needs.
    pub fn wgpu_features(self) -> wgpu::Features {
        match self {
            OptionalFeature::ClipDistances => wgpu::Features::CLIP_DISTANCES,
            OptionalFeature::IndirectFirstInstance => wgpu::Features::INDIRECT_FIRST_INSTANCE,
            OptionalFeature::TimestampQuery => {
                wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
            }
            OptionalFeature::PolygonModeLine => wgpu::Features::POLYGON_MODE_LINE,
            OptionalFeature::PipelineStatistics => wgpu::Features::PIPELINE_STATISTICS_QUERY,
        }
    }

    /// From its command-line name.
    pub fn parse(name: &str) -> Result<OptionalFeature, String> {
        OptionalFeature::ALL
            .into_iter()
            .find(|f| f.name() == name.trim())
            .ok_or_else(|| {
                let names: Vec<_> = OptionalFeature::ALL.iter().map(|f| f.name()).collect();
                format!("unknown feature {name:?}; known: {}", names.join(", "))
            })
    }

    /// Parses a comma-separated list (`clip-distances,timestamp-query`); empty is fine.
    pub fn parse_list(list: &str) -> Result<Vec<OptionalFeature>, String> {
        list.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(OptionalFeature::parse)
            .collect()
    }
}

/// Which optional features are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeatureSet {
    /// Hardware clip distances (octagon clipping without a discard).
    pub clip_distances: bool,
    /// Indirect draws with a first instance (one multi-draw per pipeline).
    pub indirect_first_instance: bool,
    /// GPU timestamps (pass timings).
    pub timestamp_query: bool,
    /// Line polygon mode (the wireframe overlay).
    pub polygon_mode_line: bool,
    /// Pipeline statistics queries (rasterized fragments).
    pub pipeline_statistics: bool,
}

impl FeatureSet {
    /// Whether `f` is on.
    pub fn has(&self, f: OptionalFeature) -> bool {
        match f {
            OptionalFeature::ClipDistances => self.clip_distances,
            OptionalFeature::IndirectFirstInstance => self.indirect_first_instance,
            OptionalFeature::TimestampQuery => self.timestamp_query,
            OptionalFeature::PolygonModeLine => self.polygon_mode_line,
            OptionalFeature::PipelineStatistics => self.pipeline_statistics,
        }
    }

    fn set(&mut self, f: OptionalFeature, on: bool) {
        match f {
            OptionalFeature::ClipDistances => self.clip_distances = on,
            OptionalFeature::IndirectFirstInstance => self.indirect_first_instance = on,
            OptionalFeature::TimestampQuery => self.timestamp_query = on,
            OptionalFeature::PolygonModeLine => self.polygon_mode_line = on,
            OptionalFeature::PipelineStatistics => self.pipeline_statistics = on,
        }
    }

    /// The names of those on.
    pub fn names(&self) -> Vec<&'static str> {
        OptionalFeature::ALL
            .iter()
            .filter(|f| self.has(**f))
            .map(|f| f.name())
            .collect()
    }
}

/// How to create the context.
#[derive(Clone, Debug, Default)]
pub struct GpuOptions {
    /// Features switched off on purpose, on top of `LANTHORN_DISABLE`.
    pub disable: Vec<OptionalFeature>,
}

impl GpuOptions {
    /// The features to switch off: `--disable` plus the `LANTHORN_DISABLE` environment variable.
    pub fn disabled(&self) -> Result<Vec<OptionalFeature>, GpuError> {
        let mut v = self.disable.clone();
        if let Ok(env) = std::env::var("LANTHORN_DISABLE") {
            v.extend(
                OptionalFeature::parse_list(&env)
                    .map_err(|e| GpuError::BadDisable(format!("LANTHORN_DISABLE: {e}")))?,
            );
        }
        v.dedup();
        Ok(v)
    }
}

#[derive(Debug, thiserror::Error)]
/// Why no GPU context could be made; each says what to do.
pub enum GpuError {
    /// No adapter at all (no driver).
    #[error(
        "no GPU adapter found (tried: {tried}).\n\
         On headless Linux install Mesa's CPU Vulkan driver: `apt-get install -y mesa-vulkan-drivers` \
         (lavapipe). If VK_ICD_FILENAMES is set to an empty value, unset it. WGPU_BACKEND=vulkan|gl \
         picks a backend."
    )]
    NoAdapter {
        /// The backends tried.
        tried: String,
    },
    /// The adapter would not make a device.
    #[error("the GPU adapter {adapter} refused to create a device: {source}")]
    Device {
        /// The adapter's name.
        adapter: String,
        /// wgpu's reason.
        source: wgpu::RequestDeviceError,
    },
    /// The window's surface could not be made or configured.
    #[error("cannot create a window surface: {0}")]
    Surface(String),
    /// `--disable` or `LANTHORN_DISABLE` named no optional feature.
    #[error("{0}")]
    BadDisable(String),
}

/// The device and what it can do.
pub struct Gpu {
    /// The wgpu instance.
    pub instance: wgpu::Instance,
    /// The adapter it runs on.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Optional features that are on (granted and not disabled).
    pub features: FeatureSet,
    /// Optional features the adapter has but were switched off on purpose.
    pub disabled: FeatureSet,
    /// The adapter's name, backend and driver.
    pub info: wgpu::AdapterInfo,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.info.name)
            .field("features", &self.features)
            .finish()
    }
}

impl Gpu {
    /// For a command run from the CLI: a lost device (driver reset, GPU removed, or
    /// `Device::destroy`) or a GPU error ends the program with one message naming what
    /// happened and exit code 1, instead of a panic. Output files are written through a rename,
    /// so none is left half-written. (Tests keep wgpu's default: errors panic the test.)
    pub fn exit_on_device_loss(&self) {
        self.device
            .set_device_lost_callback(|reason, message| {
                let what = match reason {
                    wgpu::DeviceLostReason::Destroyed => "it was destroyed",
                    _ => "the driver lost it",
                };
                eprintln!(
                    "error: the GPU device was lost ({what}{}{message}); nothing more can be drawn. If it happens again, update the GPU driver or run on Mesa's lavapipe (apt-get install mesa-vulkan-drivers)",
                    if message.is_empty() { "" } else { ": " }
                );
                std::process::exit(1);
            });
        self.device.on_uncaptured_error(std::sync::Arc::new(|e| {
            eprintln!("error: the GPU reported: {e}");
            std::process::exit(1);
        }));
    }

    /// A context with no window.
    pub fn headless(opts: &GpuOptions) -> Result<Gpu, GpuError> {
        // Vulkan alone first: probing GL (EGL) when Vulkan works only adds noise and start-up time.
        if std::env::var_os("WGPU_BACKEND").is_none() {
            let mut desc = labelled(wgpu::InstanceDescriptor::new_without_display_handle());
            desc.backends = wgpu::Backends::VULKAN;
            let instance = wgpu::Instance::new(desc.with_env());
            match Self::from_instance(instance, None, opts) {
                Err(GpuError::NoAdapter { .. }) => {}
                other => return other,
            }
        }
        let desc = wgpu::InstanceDescriptor::new_without_display_handle();
        let instance = wgpu::Instance::new(with_backends(desc));
        Self::from_instance(instance, None, opts)
    }

    /// A context able to present to `surface` (created from `instance`).
    pub fn for_surface(
        instance: wgpu::Instance,
        surface: &wgpu::Surface<'_>,
        opts: &GpuOptions,
    ) -> Result<Gpu, GpuError> {
        Self::from_instance(instance, Some(surface), opts)
    }

    /// An instance for windows: the display handle lets the GL backend present too.
    pub fn window_instance(display: Box<dyn wgpu::wgt::WgpuHasDisplayHandle>) -> wgpu::Instance {
        wgpu::Instance::new(with_backends(
            wgpu::InstanceDescriptor::new_with_display_handle(display),
        ))
    }

    fn from_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
        opts: &GpuOptions,
    ) -> Result<Gpu, GpuError> {
        let disabled_list = opts.disabled()?;
        let adapter = pick_adapter(&instance, surface)?;
        let info = adapter.get_info();
        let (required, limits) = wanted(&adapter, &disabled_list);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("lanthorn"),
            required_features: required,
            required_limits: limits,
            ..Default::default()
        }))
        .map_err(|source| GpuError::Device {
            adapter: info.name.clone(),
            source,
        })?;
        let mut gpu = Gpu::from_parts(instance, adapter, device, queue);
        for f in disabled_list {
            gpu.disabled
                .set(f, gpu.adapter.features().contains(f.wgpu_features()));
        }
        log::info!(
            "GPU: {} ({:?}), features on: {:?}",
            gpu.info.name,
            gpu.info.backend,
            gpu.features.names()
        );
        Ok(gpu)
    }

    /// What to ask of `adapter` when the application makes the device itself: the optional
    /// features Lanthorn uses that it has, and limits as large as it allows for buffers and
    /// texture arrays. A device made with less works too; Lanthorn then does without.
    pub fn wanted(adapter: &wgpu::Adapter) -> (wgpu::Features, wgpu::Limits) {
        wanted(adapter, &[])
    }

    /// Lanthorn on a device the application made (with [`Gpu::wanted`], or with less):
    /// the optional features are those the device was given.
    pub fn from_parts(
        instance: wgpu::Instance,
        adapter: wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
    ) -> Gpu {
        let mut features = FeatureSet::default();
        for f in OptionalFeature::ALL {
            features.set(f, device.features().contains(f.wgpu_features()));
        }
        let info = adapter.get_info();
        Gpu {
            instance,
            adapter,
            device,
            queue,
            features,
            disabled: FeatureSet::default(),
            info,
        }
    }

    /// The depth-stencil format of the id frames (vis-check): a view's surfaces show only
    /// where the stencil marks its portal. Float depth like the colour frame's where the
    /// device has it.
    pub fn id_depth_format(&self) -> wgpu::TextureFormat {
        if self
            .device
            .features()
            .contains(wgpu::Features::DEPTH32FLOAT_STENCIL8)
        {
            wgpu::TextureFormat::Depth32FloatStencil8
        } else {
            wgpu::TextureFormat::Depth24PlusStencil8
        }
    }

    /// A short description for panels and `lanthorn info`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}

fn with_backends(desc: wgpu::InstanceDescriptor) -> wgpu::InstanceDescriptor {
    let mut desc = labelled(desc);
    desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::GL;
    desc.with_env()
}

/// Debug labels and object names reach the driver in release builds too, so a RenderDoc
/// capture names every pass, pipeline and buffer (validation stays as the build and
/// `WGPU_VALIDATION` say). wgpu's check of indirect draws is off (`WGPU_VALIDATION_INDIRECT_CALL=1`
/// turns it on): it adds a compute pass and a copy of the commands to every frame, and the world
/// pass keeps its commands within the index buffer itself (`draws::keep_within_indices`).
fn labelled(mut desc: wgpu::InstanceDescriptor) -> wgpu::InstanceDescriptor {
    desc.flags |= wgpu::InstanceFlags::DEBUG;
    desc.flags
        .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    desc
}

/// Vulkan first, then GL; `WGPU_BACKEND` narrows the instance's backends already.
fn pick_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter, GpuError> {
    let mut adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    if let Some(s) = surface {
        adapters.retain(|a| a.is_surface_supported(s));
    }
    let rank = |a: &wgpu::Adapter| {
        let i = a.get_info();
        let backend = match i.backend {
            wgpu::Backend::Vulkan => 0,
            wgpu::Backend::Gl => 2,
            _ => 1,
        };
        let kind = match i.device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        (backend, kind)
    };
    adapters.sort_by_key(rank);
    adapters.into_iter().next().ok_or_else(|| {
        let env = std::env::var("WGPU_BACKEND")
            .map(|b| format!(" (WGPU_BACKEND={b})"))
            .unwrap_or_default();
        GpuError::NoAdapter {
            tried: format!("Vulkan, GL{env}"),
        }
    })
}

/// The features and limits to ask of `adapter`: every optional feature it has but those in
/// `disabled`, exact float depth with stencil for the id frames where it has it, and its own
/// limits for buffer sizes and texture arrays.
fn wanted(adapter: &wgpu::Adapter, disabled: &[OptionalFeature]) -> (wgpu::Features, wgpu::Limits) {
    let available = adapter.features();
    let mut required = wgpu::Features::empty();
    for f in OptionalFeature::ALL {
        if available.contains(f.wgpu_features()) && !disabled.contains(&f) {
            required |= f.wgpu_features();
        }
    }
    // The id frames' depth with a stencil: exact float depth where the adapter has it.
    required |= available & wgpu::Features::DEPTH32FLOAT_STENCIL8;
    let limits = wgpu::Limits::default().using_resolution(adapter.limits());
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: adapter.limits().max_storage_buffer_binding_size,
        max_buffer_size: adapter.limits().max_buffer_size,
        max_texture_array_layers: adapter.limits().max_texture_array_layers,
        ..limits
    };
    (required, limits)
}
