//! docs/sim-spec.md is the reference generated from the spec's doc
//! comments; this fails when the two differ. `ROUTELAB_BLESS=1` rewrites it.

use routelab_core::sim::spec_doc::reference;
use std::path::Path;

#[test]
fn sim_spec_reference_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sim-spec.md");
    let text = reference();
    if std::env::var_os("ROUTELAB_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "docs/sim-spec.md is out of date with sim/config.rs: run \
         ROUTELAB_BLESS=1 cargo test -p routelab-core --test suite spec_doc"
    );
}
