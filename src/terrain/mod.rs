//! Terrain: heightmaps and the geometry-clipmap ring selector.
