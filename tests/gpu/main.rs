//! The one integration-test binary: it shares one GPU device per process across tests.
//! Tests that need a GPU adapter or ../shared/realdata skip loudly when it is missing, and fail
//! instead when `CI=true` or `LANTHORN_REQUIRE_GPU=1`, so CI never passes by skipping.

#![warn(unreachable_pub)]

mod bloom;
mod cli;
mod clipping;
mod clouds;
mod coloured_light;
mod depth_bands;
mod doors;
mod fences;
mod fog;
mod glows;
mod golden;
mod hdr;
mod keep;
mod liquids;
mod material_maps;
mod object_light;
mod overdraw;
mod overlays;
mod pak;
mod patches;
mod portals;
mod scroll;
mod shaders;
mod shadows;
mod styles;
mod support;
mod surface_cache;
mod terrain;
mod timers;
mod ui_cover;
mod ui_paint;
mod views;
mod vis;
mod water;
mod world_water;
