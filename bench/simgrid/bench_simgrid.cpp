/* The same multi-job run in SimGrid, the reference flow-level simulator (doc/sim.md §10,
 * issue 26): reads the topology, trace and scenario that `topo-sched simulate` reads and
 * replays them with SimGrid's s4u API, so that bench/simgrid/compare.py can put the job
 * times of both side by side and time both.
 *
 * The model is set to what the project's simulator computes (doc/sim.md §1-2), so the
 * answers can agree: CM02 with TCP gamma 0, no cross traffic, zero latency, bandwidth and
 * latency factors 1: pure max-min fair sharing. One SimGrid link per directed link of ours:
 * each NIC's up-link and down-link at the node's nic_gbps, each fabric trunk up and down at
 * its summed capacity (trunk mode). Paths are pinned: every flow must give `hops`. A star
 * zone gives each flow's route as "sender up-route + receiver down-route": one receiver host
 * per (node, NIC) whose down-route is the NIC's down-link, one sender host per distinct
 * (node, NIC, hops) whose up-route is the NIC's up-link then the fabric links of the path.
 * Units: a Gbit is sent as 1e9 "bytes" over links of gbps * 1e9 "bytes"/s, so times are
 * those of our Gbit and Gbit/s.
 *
 * Jobs: fixed `nodes`, `iterations`, explicit `flows` phases (with `repeat`). The queue must
 * be `ff` and any two jobs' node sets identical or disjoint: then a job starts when it has
 * arrived and the previous job on its nodes (arrival order, then trace order) has finished,
 * which is what ff does with such node sets (smallest first, then arrival). One actor per node
 * set runs its jobs in turn. An iteration computes for compute_ms; its communication starts
 * round((1 - overlap) * C) after the iteration started; phases run one after another, each
 * ends with its last flow; the iteration ends when both the computation and the last phase
 * have. Anything else in the inputs (duration_s, patterns, priorities, failures, member
 * links) is refused with a message naming it: this program checks agreement, it is not a
 * second simulator.
 *
 * usage: bench_simgrid TOPO.json TRACE.json SCENARIO.json [--cfg=...]...
 * prints: "simgrid VERSION", one line per job in trace order "job NAME ARRIVAL_S START_S
 * FINISH_S JCT_S" (%.17g), then "build_ms X" (platform and actors) and "run_ms Y"
 * (Engine::run). */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <jansson.h>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <topo-sched/topo-sched.h>

namespace sg4 = simgrid::s4u;

namespace {

struct Flow {
    sg4::Host *from, *to;
    uint64_t bytes; /* SimGrid counts whole bytes: our Gbit x 1e9 */
};
struct Phase {
    std::vector<Flow> flows;
    long repeat;
};
struct Job {
    std::string name;
    int64_t arrival_ns, compute_ns, release_ns;
    long iterations;
    std::vector<uint32_t> nodes;
    std::vector<Phase> phases;
    double start = -1, finish = -1;
};

[[noreturn]] void fail(const std::string &msg)
{
    std::fprintf(stderr, "bench_simgrid: %s\n", msg.c_str());
    std::exit(2);
}

double num(const json_t *o, const char *key, double dflt, const std::string &where)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return dflt;
    if (!json_is_number(v))
        fail(where + "." + key + ": not a number");
    return json_number_value(v);
}

/* The scenario: only what the SimGrid side reproduces is accepted. */
double check_scenario(const char *path)
{
    json_error_t err;
    json_t *sc = json_load_file(path, 0, &err);
    if (!sc)
        fail(std::string(path) + ": " + err.text);
    const char *need[][2] = {{"queue", "ff"}, {"links", "trunk"}, {"priority", "none"}, {"reroute", "none"}};
    for (auto &n : need) {
        const json_t *v = json_object_get(sc, n[0]);
        if (!v || !json_is_string(v) || std::strcmp(json_string_value(v), n[1]))
            fail(std::string(path) + ": " + n[0] + " must be \"" + n[1] + "\" for the comparison");
    }
    for (const char *k : {"failures", "until_s", "shared_nodes", "host_links"}) {
        const json_t *v = json_object_get(sc, k);
        if (v && !json_is_null(v) && !json_is_false(v) && !(json_is_array(v) && json_array_size(v) == 0))
            fail(std::string(path) + ": " + k + " is not reproduced by the comparison");
    }
    if (num(sc, "max_sim_iterations", 0, path) != 0)
        fail(std::string(path) + ": max_sim_iterations must be 0 (exact mode)");
    double lat_us = num(sc, "phase_latency_us", 0, path);
    json_decref(sc);
    return lat_us;
}

int64_t ns_of(double s) { return (int64_t)std::nearbyint(s * 1e9); }
double secs(int64_t ns) { return (double)ns / 1e9; }

struct Platform {
    tsched_topology *t;
    sg4::NetZone *zone;
    std::vector<sg4::Link *> nic_up, nic_down; /* by node * max_nics + nic */
    std::vector<sg4::Link *> fab;              /* 2 * trunk + (0 up, 1 down) */
    std::vector<sg4::Host *> recv;             /* by node * max_nics + nic */
    std::map<std::vector<uint32_t>, sg4::Host *> send;
    uint32_t max_nics = 0;

    sg4::Link *link(std::vector<sg4::Link *> &v, size_t i, const std::string &name, double gbps)
    {
        if (!v[i])
            v[i] = zone->create_link(name, gbps * 1e9)->set_latency(0)->seal();
        return v[i];
    }
    sg4::Host *receiver(uint32_t node, uint32_t nic)
    {
        size_t i = (size_t)node * max_nics + nic;
        if (!recv[i]) {
            std::string n = std::string(tsched_topology_node_name(t, node)) + "#" + std::to_string(nic);
            recv[i] = zone->create_host("r:" + n, 1.0)->seal();
            std::vector<sg4::LinkInRoute> down{sg4::LinkInRoute(
                link(nic_down, i, "down:" + n, tsched_topology_node_nic_gbps(t, node)))};
            zone->add_route(nullptr, recv[i]->get_netpoint(), nullptr, nullptr, down, false);
        }
        return recv[i];
    }
    /* key: node, nic, then the path's directed fabric links */
    sg4::Host *sender(const std::vector<uint32_t> &key)
    {
        auto it = send.find(key);
        if (it != send.end())
            return it->second;
        uint32_t node = key[0], nic = key[1];
        size_t i = (size_t)node * max_nics + nic;
        std::string n = std::string(tsched_topology_node_name(t, node)) + "#" + std::to_string(nic);
        sg4::Host *h = zone->create_host("s" + std::to_string(send.size()) + ":" + n, 1.0)->seal();
        std::vector<sg4::LinkInRoute> up{
            sg4::LinkInRoute(link(nic_up, i, "up:" + n, tsched_topology_node_nic_gbps(t, node)))};
        for (size_t k = 2; k < key.size(); k++) {
            uint32_t tr = key[k] / 2;
            std::string ln = std::string(tsched_topology_switch_name(t, tsched_topology_trunk_lower(t, tr))) + "~" +
                             tsched_topology_switch_name(t, tsched_topology_trunk_upper(t, tr)) +
                             (key[k] % 2 ? ":down" : ":up");
            up.emplace_back(link(fab, key[k], ln, tsched_topology_trunk_gbps(t, tr)));
        }
        zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, up, false);
        send.emplace(key, h);
        return h;
    }
};

std::vector<Job> load_trace(const char *path, Platform &p)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (!doc)
        fail(std::string(path) + ": " + err.text);
    const json_t *jobs = json_object_get(doc, "jobs");
    if (!json_is_array(jobs))
        fail(std::string(path) + ": jobs: not an array");
    std::vector<Job> out(json_array_size(jobs));
    for (size_t i = 0; i < out.size(); i++) {
        const json_t *jo = json_array_get(jobs, i);
        std::string w = "jobs[" + std::to_string(i) + "]";
        Job &j = out[i];
        const json_t *nm = json_object_get(jo, "name");
        if (!json_is_string(nm))
            fail(w + ".name: missing");
        j.name = json_string_value(nm);
        if (json_object_get(jo, "duration_s") || !json_is_integer(json_object_get(jo, "iterations")))
            fail(w + ": the comparison needs whole-number iterations (no duration_s)");
        j.iterations = (long)json_integer_value(json_object_get(jo, "iterations"));
        j.arrival_ns = ns_of(num(jo, "arrival_s", 0, w));
        j.compute_ns = (int64_t)std::nearbyint(num(jo, "compute_ms", 0, w) * 1e6);
        j.release_ns = (int64_t)std::nearbyint((1 - num(jo, "overlap", 0, w)) * (double)j.compute_ns);
        const json_t *nodes = json_object_get(jo, "nodes");
        if (!json_is_array(nodes) || json_array_size(nodes) == 0)
            fail(w + ".nodes: the comparison needs fixed nodes");
        for (size_t k = 0; k < json_array_size(nodes); k++) {
            uint32_t n = tsched_topology_find_node(p.t, json_string_value(json_array_get(nodes, k)));
            if (n == TSCHED_NONE)
                fail(w + ".nodes[" + std::to_string(k) + "]: unknown node");
            j.nodes.push_back(n);
        }
        const json_t *phs = json_object_get(jo, "phases");
        for (size_t ph = 0; ph < json_array_size(phs); ph++) {
            const json_t *po = json_array_get(phs, ph);
            std::string pw = w + ".phases[" + std::to_string(ph) + "]";
            const json_t *fl = json_object_get(po, "flows");
            if (!json_is_array(fl))
                fail(pw + ": the comparison needs explicit flows");
            Phase P;
            P.repeat = (long)num(po, "repeat", 1, pw);
            for (size_t f = 0; f < json_array_size(fl); f++) {
                const json_t *fo = json_array_get(fl, f);
                std::string fw = pw + ".flows[" + std::to_string(f) + "]";
                uint32_t src = j.nodes.at((size_t)num(fo, "src", 0, fw)), dst = j.nodes.at((size_t)num(fo, "dst", 0, fw));
                uint32_t sn = (uint32_t)num(fo, "src_nic", 0, fw), dn = (uint32_t)num(fo, "dst_nic", 0, fw);
                const json_t *hops = json_object_get(fo, "hops");
                if (!json_is_array(hops) || json_array_size(hops) == 0)
                    fail(fw + ".hops: the comparison needs pinned paths");
                std::vector<uint32_t> key{src, sn}, sw;
                for (size_t h = 0; h < json_array_size(hops); h++) {
                    uint32_t s = tsched_topology_find_switch(p.t, json_string_value(json_array_get(hops, h)));
                    if (s == TSCHED_NONE)
                        fail(fw + ".hops[" + std::to_string(h) + "]: unknown switch");
                    sw.push_back(s);
                }
                for (size_t h = 0; h + 1 < sw.size(); h++) {
                    uint32_t tr = tsched_topology_find_trunk(p.t, sw[h], sw[h + 1]);
                    if (tr == TSCHED_NONE)
                        fail(fw + ".hops: not a path");
                    int up = tsched_topology_switch_tier(p.t, sw[h + 1]) > tsched_topology_switch_tier(p.t, sw[h]);
                    key.push_back(2 * tr + (up ? 0u : 1u)); /* the simulator's directed link numbering */
                }
                P.flows.push_back(Flow{p.sender(key), p.receiver(dst, dn), (uint64_t)std::llround(num(fo, "gbits", 0, fw) * 1e9)});
            }
            j.phases.push_back(std::move(P));
        }
    }
    json_decref(doc);
    return out;
}

double phase_latency_s = 0;

void run_slot(std::vector<Job *> jobs)
{
    for (Job *j : jobs) {
        double arrival = secs(j->arrival_ns);
        if (sg4::Engine::get_clock() < arrival)
            sg4::this_actor::sleep_until(arrival);
        j->start = sg4::Engine::get_clock();
        for (long it = 0; it < j->iterations; it++) {
            double t0 = sg4::Engine::get_clock(), cend = t0 + secs(j->compute_ns);
            if (j->release_ns > 0)
                sg4::this_actor::sleep_until(t0 + secs(j->release_ns));
            for (const Phase &ph : j->phases)
                for (long r = 0; r < ph.repeat; r++) {
                    if (phase_latency_s > 0)
                        sg4::this_actor::sleep_for(phase_latency_s);
                    std::vector<sg4::CommPtr> comms;
                    comms.reserve(ph.flows.size());
                    for (const Flow &f : ph.flows)
                        comms.push_back(sg4::Comm::sendto_async(f.from, f.to, f.bytes));
                    sg4::Comm::wait_all(comms);
                }
            if (sg4::Engine::get_clock() < cend)
                sg4::this_actor::sleep_until(cend);
        }
        j->finish = sg4::Engine::get_clock();
    }
}

} // namespace

int main(int argc, char **argv)
{
    sg4::Engine e(&argc, argv);
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_simgrid TOPO.json TRACE.json SCENARIO.json [--cfg=...]\n");
        return 2;
    }
    /* pure max-min: the model of doc/sim.md §2 */
    for (const char *c : {"network/model:CM02", "network/crosstraffic:0", "network/TCP-gamma:0",
                          "network/weight-S:0", "network/latency-factor:1", "network/bandwidth-factor:1"})
        e.set_config(c);
    auto t0 = std::chrono::steady_clock::now();
    phase_latency_s = check_scenario(argv[3]) * 1e-6;
    Platform p{};
    tsched_status st = tsched_topology_load_file(&p.t, argv[1]);
    if (st != TSCHED_OK)
        fail(std::string(argv[1]) + ": " + tsched_last_error());
    uint32_t nn = tsched_topology_num_nodes(p.t);
    for (uint32_t n = 0; n < nn; n++)
        p.max_nics = std::max(p.max_nics, tsched_topology_node_nics(p.t, n));
    p.zone = sg4::create_star_zone("fabric");
    p.nic_up.assign((size_t)nn * p.max_nics, nullptr);
    p.nic_down.assign((size_t)nn * p.max_nics, nullptr);
    p.recv.assign((size_t)nn * p.max_nics, nullptr);
    p.fab.assign(2 * (size_t)tsched_topology_num_trunks(p.t), nullptr);
    sg4::Host *ctl = p.zone->create_host("ctl", 1.0)->seal();
    std::vector<Job> jobs = load_trace(argv[2], p);
    p.zone->seal();

    /* node sets: identical or disjoint; each runs its jobs in (arrival, trace) order */
    std::vector<int> owner(nn, -1);
    std::vector<std::vector<Job *>> slots;
    std::vector<std::vector<uint32_t>> slot_nodes;
    std::vector<size_t> order(jobs.size());
    for (size_t i = 0; i < order.size(); i++)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return jobs[a].arrival_ns < jobs[b].arrival_ns; });
    for (size_t i : order) {
        Job &j = jobs[i];
        int s = owner[j.nodes[0]];
        std::vector<uint32_t> sorted = j.nodes;
        std::sort(sorted.begin(), sorted.end());
        if (s < 0) {
            s = (int)slots.size();
            slots.emplace_back();
            slot_nodes.push_back(sorted);
            for (uint32_t n : sorted)
                if (owner[n] >= 0)
                    fail("jobs[" + std::to_string(i) + "].nodes: overlaps another job's node set without equalling it");
                else
                    owner[n] = s;
        } else if (slot_nodes[(size_t)s] != sorted)
            fail("jobs[" + std::to_string(i) + "].nodes: overlaps another job's node set without equalling it");
        slots[(size_t)s].push_back(&j);
    }
    for (size_t s = 0; s < slots.size(); s++)
        sg4::Actor::create("slot" + std::to_string(s), ctl, [v = slots[s]]() { run_slot(v); });
    auto t1 = std::chrono::steady_clock::now();
    e.run();
    auto t2 = std::chrono::steady_clock::now();

    int vmaj, vmin, vpat; /* the library actually run, not the headers */
    sg_version_get(&vmaj, &vmin, &vpat);
    std::printf("simgrid %d.%d.%d\n", vmaj, vmin, vpat);
    for (const Job &j : jobs)
        std::printf("job %s %.17g %.17g %.17g %.17g\n", j.name.c_str(), secs(j.arrival_ns), j.start, j.finish,
                    j.finish < 0 ? -1.0 : j.finish - secs(j.arrival_ns));
    std::printf("build_ms %.3f\nrun_ms %.3f\n", std::chrono::duration<double, std::milli>(t1 - t0).count(),
                std::chrono::duration<double, std::milli>(t2 - t1).count());
    tsched_topology_free(p.t);
    return 0;
}
