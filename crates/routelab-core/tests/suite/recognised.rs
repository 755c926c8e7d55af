//! Tori and fat trees read from fabric dumps, numbered as a real fabric
//! numbers them: routed by dimension order, torus-2QoS and D-mod-k, their
//! tables exported as the fabric's LFTs, and simulated with the torus
//! routers and coordinate patterns, all through recognition from the
//! cabling.

use routelab_core::network::{io, spec, Network, NetworkBuilder, NodeId, Structure};
use routelab_core::routing::{self, formats, RoutingOptions};
use routelab_core::sim::{self, Spec};
use routelab_core::PortId;

/// `net` as a fabric dump might number it: nodes in a scrambled order,
/// each node's ports permuted, cables listed in another order; no
/// structure. Deterministic (a multiplicative permutation).
fn scrambled(net: &Network) -> Network {
    let n = net.node_count() as u64;
    // A step coprime with n visits every index once.
    let step = (n / 2..n).find(|&k| gcd(k, n) == 1).unwrap_or(1);
    let order: Vec<usize> = (0..n).map(|i| ((i * step + 3) % n) as usize).collect();
    let mut b = NetworkBuilder::new("fabric");
    for class in net.classes() {
        b.add_class(class.clone());
    }
    let mut new_of = vec![NodeId(0); net.node_count()];
    for &i in &order {
        let node = net.node(NodeId(i as u32));
        let id = b.add_node(node.kind, node.name.clone(), node.ports);
        b.node_mut(id).guid = node.guid;
        new_of[i] = id;
    }
    // Ports reversed on every node: port p -> ports + 1 - p.
    let port = |x: NodeId, p: PortId| PortId(net.node(x).ports + 1 - p.0);
    let cables: Vec<_> = net.channels().chunks(2).map(|c| c[0]).rev().collect();
    for c in cables {
        b.connect(
            new_of[c.src.index()],
            port(c.src, c.src_port),
            new_of[c.dst.index()],
            port(c.dst, c.dst_port),
            c.class,
        )
        .unwrap();
    }
    b.build().unwrap()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Writes `net` as an ibnetdiscover file and reads it back, as an
/// administrator's dump arrives.
fn dumped(net: &Network, name: &str) -> (Network, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("routelab-recognised-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.ibnet"));
    io::save(net, &path).unwrap();
    let back = io::load(&path).unwrap();
    assert_eq!(back.structure(), &Structure::Irregular);
    (back, path)
}

#[test]
fn dumped_tori_and_trees_route_with_their_structured_engines() {
    for (engine, spec_text, lanes) in [
        ("dor", "torus:4x4x3,c=2", 2),
        ("dor", "mesh:5x3", 1),
        ("torus-2qos", "torus:5x4", 2),
        ("dmodk", "kary-ntree:k=4,n=3", 1),
        ("dmodk", "xgft:m=4x3,w=2x3,terminals=30", 1),
    ] {
        let generated = spec::build(spec_text).unwrap();
        let (fabric, _) = dumped(&scrambled(&generated), engine);
        let o = RoutingOptions::default();
        let routes = routing::route(&fabric, engine, &o)
            .unwrap_or_else(|e| panic!("{engine} on {spec_text}: {e}"));
        let rep = routes.deadlock_report(&fabric).unwrap();
        assert!(rep.deadlock_free, "{engine} on {spec_text}: {rep}");
        assert!(
            routes.is_minimal(&fabric).unwrap(),
            "{engine} on {spec_text}"
        );
        assert_eq!(routes.lanes(), lanes, "{engine} on {spec_text}");
        // The LFTs name the fabric's own ports: read back, they walk every
        // pair to its destination on the same paths.
        let text = formats::write_lfts(&fabric, &routes).unwrap();
        let read = formats::read_lfts(&fabric, &text, "opensm-lfts.dump").unwrap();
        let t = fabric.terminals().len();
        for s in 0..t {
            for d in (0..t).filter(|&d| d != s) {
                assert_eq!(
                    read.path(&fabric, s, d).unwrap(),
                    routes.path(&fabric, s, d).unwrap(),
                    "{engine} on {spec_text}: {s} -> {d}"
                );
            }
        }
    }
}

/// A HyperX read back from an ibnetdiscover dump is recognised, renumbered
/// as the generator numbers it, and summarised by its closed forms.
#[test]
fn dumped_hyperx_is_recognised() {
    use routelab_core::network::metrics::summary;
    use routelab_core::network::recognise::recognise;
    for (spec_text, shown) in [
        ("hyperx:S=2x4,t=2,p=3", "hyperx:S=4x2,t=2,p=3"),
        ("flatfly:k=4,n=3", "hyperx:S=4x4,t=1,p=4"),
    ] {
        let generated = spec::build(spec_text).unwrap();
        let (fabric, _) = dumped(&scrambled(&generated), "hyperx");
        let r = recognise(&fabric).unwrap_or_else(|e| panic!("{spec_text}: {e}"));
        assert_eq!(r.describe(), shown);
        let s = summary(&fabric);
        assert_eq!(s.recognised.as_deref(), Some(shown));
        let (on_fabric, recognised) = (summary(&r.net), summary(&generated));
        assert_eq!(on_fabric.diameter, 2);
        assert_eq!(on_fabric.bisection_method, "formula");
        assert_eq!(
            (on_fabric.bisection_width, on_fabric.bisection_exact),
            (recognised.bisection_width, true)
        );
        assert_eq!(s.bisection_width, recognised.bisection_width);
    }
}

#[test]
fn engines_that_need_structure_say_what_the_dump_is() {
    let (fabric, _) = dumped(
        &scrambled(&spec::build("random:switches=10,ports=6,hosts=2,seed=4").unwrap()),
        "random",
    );
    let e = routing::route(&fabric, "dor", &RoutingOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("is an irregular, and its cabling is of no family routelab knows"),
        "{e}"
    );
    let (tree, _) = dumped(
        &scrambled(&spec::build("kary-ntree:k=2,n=3").unwrap()),
        "tree",
    );
    let e = routing::route(&tree, "dor", &RoutingOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("is a kary-ntree (recognised from its cabling)"),
        "{e}"
    );
}

#[test]
fn dumped_tori_simulate_with_torus_routers_and_coordinate_patterns() {
    let torus = dumped(&scrambled(&spec::build("torus:4x4x4").unwrap()), "sim").1;
    let mesh = dumped(&scrambled(&spec::build("mesh:4x3x3,c=2").unwrap()), "mesh").1;
    for (path, router, pattern) in [
        (&torus, "abr", "uniform"),
        (&torus, "dor", "transpose"),
        (&torus, "ofr", "tornado"),
        (&mesh, "duato", "uniform"),
        (&mesh, "dor", "tornado"),
    ] {
        let text = format!(
            "[network]\ntopology = {path:?}\n[routing]\nalgorithm = \"{router}\"\n\
             [router]\nswitching = \"cut-through\"\nvcs = 3\nbuffer_flits = 64\n\
             [traffic]\npattern = \"{pattern}\"\nload = 0.05\n\
             [run]\nwarmup_cycles = 300\nmeasure_cycles = 1500\n"
        );
        let s = Spec::from_toml_str(&text).unwrap();
        let r = sim::simulate(&s).unwrap_or_else(|e| panic!("{router} / {pattern}: {e}"));
        assert!(r.drained, "{router} / {pattern}");
        assert!(r.packets_delivered > 0, "{router} / {pattern}");
        assert!(
            (r.accepted - r.offered).abs() <= 0.1 * r.offered,
            "{router} / {pattern}: accepted {} of {}",
            r.accepted,
            r.offered
        );
    }
}

/// Terminals a spec names and the results report are the fabric's, though
/// the simulation runs on the renumbered torus: a ping-pong between two
/// named hosts takes the generated torus's round trip, and the channels
/// the results show busy lie on minimal paths between those two hosts.
#[test]
fn a_recognised_fabric_keeps_its_own_terminal_and_channel_numbers() {
    let generated = spec::build("torus:5x4,c=2").unwrap();
    let (fabric, path) = dumped(&scrambled(&generated), "pingpong");
    let index = |net: &Network, name: &str| {
        net.terminals()
            .iter()
            .position(|&t| net.node(t).name == name)
            .unwrap()
    };
    let run = |topology: &str, a: usize, b: usize| {
        let text = format!(
            "[network]\ntopology = {topology:?}\n[routing]\nalgorithm = \"duato\"\n\
             [router]\nvcs = 3\nbuffer_flits = 32\n\
             [traffic]\nworkload = \"ping-pong\"\npairs = [[{a}, {b}]]\n\
             message_bytes = \"2KB\"\npacket_bytes = \"256B\"\nrounds = 3\n\
             [run]\nchannel_stats = true\n"
        );
        sim::simulate(&Spec::from_toml_str(&text).unwrap()).unwrap()
    };
    let (fa, fb) = (index(&fabric, "h3"), index(&fabric, "h26"));
    assert_ne!((fa, fb), (3, 26), "the dump numbers its hosts otherwise");
    let on_fabric = run(path.to_str().unwrap(), fa, fb);
    let on_generated = run(
        generated.name(),
        index(&generated, "h3"),
        index(&generated, "h26"),
    );
    let (p, q) = (
        &on_fabric.workload.as_ref().unwrap().pairs[0],
        &on_generated.workload.as_ref().unwrap().pairs[0],
    );
    assert_eq!((p.src as usize, p.dst as usize), (fa, fb));
    assert_eq!(p.round_trip_ns, q.round_trip_ns);
    // Busy channels, in the fabric's numbering, lie on minimal paths.
    let util = on_fabric.channel_utilisation.as_ref().unwrap();
    assert_eq!(util.len(), fabric.channel_count());
    let (ha, hb) = (fabric.terminal(fa), fabric.terminal(fb));
    let from_a = routelab_core::network::metrics::bfs_distances(&fabric, ha);
    let from_b = routelab_core::network::metrics::bfs_distances(&fabric, hb);
    let busy: Vec<usize> = (0..util.len()).filter(|&c| util[c] > 0.0).collect();
    assert!(busy.len() >= 2 * from_a[hb.index()] as usize);
    for c in busy {
        let ch = fabric.channel(routelab_core::ChannelId(c as u32));
        let (s, d) = (ch.src.index(), ch.dst.index());
        // On a shortest path from one host to the other, either way.
        let hops = from_a[hb.index()];
        let via = |x: &[u32], y: &[u32]| x[s] + 1 + y[d] == hops;
        assert!(
            via(&from_a, &from_b) || via(&from_b, &from_a),
            "channel {c}"
        );
    }
}
