//! RenderDoc's in-app API, when the program runs under RenderDoc (`renderdoccmd capture …`,
//! or its Vulkan layer): frame captures triggered by the program (F11, `--renderdoc-frame N`).
//! The library is only looked up, never loaded: without RenderDoc nothing changes.

use std::ffi::c_void;

use renderdoc_sys::{eRENDERDOC_API_Version_1_4_1, RENDERDOC_API_1_4_1};

/// The RenderDoc API of this process.
pub struct RenderDoc {
    api: *const RENDERDOC_API_1_4_1,
    /// Keeps the library's handle (it was loaded by RenderDoc itself).
    _library: libloading::Library,
}

/// Why frames cannot be captured: said once, with what to do.
pub const NOT_ATTACHED: &str = "RenderDoc is not attached: run under it, e.g. `renderdoccmd capture -w ./target/release/lanthorn capture … --renderdoc-frame 0` (Debian: apt-get install renderdoc)";

impl RenderDoc {
    /// The API when RenderDoc injected itself into this process (its library is already
    /// loaded); an error saying how to run under it otherwise.
    pub fn attached() -> Result<RenderDoc, String> {
        #[cfg(unix)]
        {
            use libloading::os::unix::{Library, RTLD_NOW};
            const RTLD_NOLOAD: i32 = 0x4;
            // SAFETY: RTLD_NOLOAD only returns a handle to a library already in the process;
            // it runs no initialisers.
            let library = unsafe { Library::open(Some("librenderdoc.so"), RTLD_NOW | RTLD_NOLOAD) }
                .map_err(|_| NOT_ATTACHED.to_string())?;
            Self::from_library(library.into())
        }
        #[cfg(not(unix))]
        {
            Err(NOT_ATTACHED.to_string())
        }
    }

    fn from_library(library: libloading::Library) -> Result<RenderDoc, String> {
        type GetApi = unsafe extern "C" fn(version: u32, out: *mut *mut c_void) -> i32;
        // SAFETY: RENDERDOC_GetAPI has this signature in every RenderDoc since 1.0.
        let get_api = unsafe { library.get::<GetApi>(b"RENDERDOC_GetAPI\0") }
            .map_err(|e| format!("RenderDoc is loaded but has no RENDERDOC_GetAPI: {e}"))?;
        let mut api: *mut c_void = std::ptr::null_mut();
        // SAFETY: asks for the 1.4.1 table, which RenderDoc fills in or refuses (returns 0).
        let ok = unsafe { get_api(eRENDERDOC_API_Version_1_4_1, &mut api) };
        if ok != 1 || api.is_null() {
            return Err(
                "RenderDoc is attached but refused API 1.4.1 (it is older than 1.4.1)".into(),
            );
        }
        Ok(RenderDoc {
            api: api as *const RENDERDOC_API_1_4_1,
            _library: library,
        })
    }

    fn table(&self) -> &RENDERDOC_API_1_4_1 {
        // SAFETY: RenderDoc keeps its API table alive for the life of the process.
        unsafe { &*self.api }
    }

    /// Starts capturing the frame about to be recorded (on the active device).
    pub fn start_frame(&self) {
        if let Some(start) = self.table().StartFrameCapture {
            // SAFETY: null device and window: RenderDoc's "the active one".
            unsafe { start(std::ptr::null_mut(), std::ptr::null_mut()) };
        }
    }

    /// Ends the capture; true when RenderDoc wrote it.
    pub fn end_frame(&self) -> bool {
        match self.table().EndFrameCapture {
            // SAFETY: as `start_frame`.
            Some(end) => unsafe { end(std::ptr::null_mut(), std::ptr::null_mut()) == 1 },
            None => false,
        }
    }

    /// Captures written so far by this process.
    pub fn captures(&self) -> u32 {
        match self.table().GetNumCaptures {
            // SAFETY: takes no arguments.
            Some(n) => unsafe { n() },
            None => 0,
        }
    }
}
