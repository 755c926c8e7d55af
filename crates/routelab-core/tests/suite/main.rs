//! The integration tests, one binary whose modules are the files: linked
//! once instead of once a file (a clean `cargo test --no-run` took 440 s
//! against 486 s as 25 binaries on 2 cores). `cargo test -p routelab-core
//! --test suite sim::` runs one file's tests.

mod common;
mod dispersive;
mod fabric_files;
mod flow;
mod formats;
mod fuzz;
mod generators;
mod itb;
mod journal;
mod lft_endpoints;
mod lid_routes;
mod messages;
mod metrics;
mod recognised;
mod route_formats;
mod routing;
mod sim;
mod sim_allocator;
mod sim_parallel;
mod sim_route_at_front;
mod sim_routing_unit;
mod sim_waiters;
mod spec_doc;
mod torus_routers;
mod traffic;
