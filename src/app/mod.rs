//! The demo window.
