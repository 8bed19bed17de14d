// Preetham et al.'s daylight sky (terrain::ScatteringSky::color is the CPU twin), shared by
// the terrain's sky and fog and the world's aerial fog: in direction `d` for the unit vector
// `sun` towards the sun and the model's uniform `sky` (terrain::ScatteringSky::uniform:
// Perez's A–E for (Y, x, y), then the zenith scale and the exposure). Perez's distribution for
// Y, x and y scaled to the zenith's, to XYZ, to linear sRGB, exposed and tone-mapped by
// 1 - e^-c. Below the horizon: the horizon's.
fn perez_sky(d: vec3<f32>, sun: vec3<f32>, sky: array<vec4<f32>, 6>) -> vec3<f32> {
    let h = normalize(vec3<f32>(d.x, d.y, max(d.z, 0.0)) + vec3<f32>(0.0, 0.0, 1e-6));
    let cos_theta = max(h.z, 0.001);
    let cos_gamma = clamp(dot(h, sun), -1.0, 1.0);
    let gamma = acos(cos_gamma);
    let f = (1.0 + sky[0].xyz * exp(sky[1].xyz / cos_theta))
        * (1.0 + sky[2].xyz * exp(sky[3].xyz * gamma) + sky[4].xyz * cos_gamma * cos_gamma);
    let yxy = sky[5].xyz * f;
    let lum = yxy.x;
    let big_x = yxy.y / yxy.z * lum;
    let big_z = (1.0 - yxy.y - yxy.z) / yxy.z * lum;
    let rgb = vec3<f32>(
        3.2406 * big_x - 1.5372 * lum - 0.4986 * big_z,
        -0.9689 * big_x + 1.8758 * lum + 0.0415 * big_z,
        0.0557 * big_x - 0.2040 * lum + 1.0570 * big_z,
    );
    return 1.0 - exp(-max(rgb, vec3<f32>(0.0)) * sky[5].w);
}
