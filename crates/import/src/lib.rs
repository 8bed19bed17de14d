//! Importers of foreign level formats (Quake BSP29).

#![warn(unreachable_pub)]

pub mod pak;
pub mod q1;
