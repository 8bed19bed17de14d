//! Importers of foreign level formats (Quake BSP29).

pub mod pak;
pub mod q1;
