//! Helpers shared by the level tests.

/// Real data is missing: skip loudly, or fail when the environment says it must be there.
pub(crate) fn missing_realdata(path: &std::path::Path) {
    let required = std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("LANTHORN_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if required {
        panic!(
            "real data missing at {} (required because CI=true or LANTHORN_REQUIRE_GPU=1)",
            path.display()
        );
    }
    eprintln!(
        "\n*** SKIPPED: real data missing at {} ***\n",
        path.display()
    );
}
