//! Importers of foreign level formats (Quake BSP29).
