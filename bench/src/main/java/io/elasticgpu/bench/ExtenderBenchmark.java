package io.elasticgpu.bench;

import static io.elasticgpu.scheduler.K8s.container;
import static io.elasticgpu.scheduler.K8s.node;
import static io.elasticgpu.scheduler.K8s.pod;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.PodAsks;
import io.elasticgpu.bench.Loopback.Latency;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.scheduler.binding.InMemoryClusterApi;
import io.elasticgpu.scheduler.cache.ClusterCache;
import io.elasticgpu.scheduler.extender.ExtenderConfig;
import io.elasticgpu.scheduler.extender.ExtenderServer;
import io.elasticgpu.scheduler.extender.ExtenderService;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeListBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The extender over real HTTP on loopback, fed a fleet of 8-card nodes (two NVLink islands of four each) directly,
 * binding through the in-memory API. Phases, for 1,000 and 5,000 nodes:
 * <ol>
 *   <li>bind: two pods per node of mixed shapes, each bound on its own node, as kube-scheduler's bind call would;</li>
 *   <li>filter and prioritize latency, one caller at a time (kube-scheduler calls the extender from its single
 *       scheduling loop), in node-names mode and in full-node mode;</li>
 *   <li>filter+prioritize pairs per second, with one caller and with two (in node-names mode the median of
 *       {@link #ROUNDS} interleaved rounds);</li>
 *   <li>at {@link #HEADLINE_NODES} nodes in node-names mode, scheduling cycles per second, one caller: what
 *       kube-scheduler sends for one pod, the filter with every node, then prioritize with the nodes the filter
 *       passed, only when it passed more than one (kube-scheduler scores nothing when one node is left, and none
 *       when no node is).</li>
 * </ol>
 * The named baseline, {@link EchoExtender}, is the same JDK HTTP server parsing the same request and answering that
 * every node fits: the floor that transport and JSON set. The ratio says what card-level reasoning adds to it. The
 * pairs-per-second target is checked at 1,000 nodes: at 5,000, even the echo's pairs (two calls that only parse and
 * copy 5,000 names) come near 1,000 per second on 2 cores.
 *
 * <p>In node-names mode two more stacks carry the same echo ({@link EchoAnswer}), measured the same way and
 * interleaved with the echo and the extender: {@link HelidonEcho} (Helidon SE's WebServer) and
 * {@link JdkDispatcherEcho} (the JDK server without an executor), so that the protocol stack is chosen by numbers
 * (docs/results/http-stack.md). Full-node mode measures JSON of whole nodes, not the stack, and leaves them out.
 *
 * <p>It is over 400 lines because its phases share one fleet, one client and one set of servers per fleet size, and
 * the rounds that interleave the contenders sit beside the phases they time; a split would pass all of them around.
 */
final class ExtenderBenchmark {

    static final double TARGET_P99_MS = 5;
    static final double TARGET_PAIRS_PER_SECOND = 2000;
    private static final int CARDS = 8;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The server names of the other stacks' echoes, in the rows. */
    private static final String HELIDON = "helidon-echo";

    private static final String JDK_DISPATCHER = "jdk-dispatcher-echo";
    private static final String EXTENDER = "elastic-gpu";

    /** Rounds of the interleaved pairs-per-second measurement in node-names mode; each figure is the median. */
    static final int ROUNDS = 5;

    /** The fleet size, mode and callers {@link Result#pairsPerSecond} is measured at. */
    static final int HEADLINE_NODES = 1000;

    private ExtenderBenchmark() {}

    /**
     * What one run measured; the JSON.
     *
     * @param pairsPerSecond     filter+prioritize pairs per second with one caller at {@link #HEADLINE_NODES} nodes in
     *                           node-names mode; null when that fleet size was not run
     * @param echoPairsPerSecond the echo's, in the same run, the same way
     * @param helidonEchoPairsPerSecond        the same echo on Helidon SE's WebServer, the same way
     * @param jdkDispatcherEchoPairsPerSecond  the same echo on the JDK server without an executor, the same way
     * @param cyclesPerSecond    scheduling cycles per second (filter, then prioritize with what passed when more
     *                           than one passed), one caller, {@link #HEADLINE_NODES} nodes, node names; null when
     *                           that fleet size was not run
     * @param echoCyclesPerSecond the echo's, in the same rounds (it passes every node, so its cycles are two calls)
     * @param decidedShare       of the extender's filter calls in those cycles, the share that passed one node
     * @param policy             the extender's placement policy ({@code --policy})
     * @param loadAverageBefore  the 1-minute load average (/proc/loadavg) when the run started
     * @param loadAverageAfter   and when it ended
     */
    record Result(
            int requests,
            int cores,
            double loadAverageBefore,
            double loadAverageAfter,
            Double pairsPerSecond,
            Double echoPairsPerSecond,
            Double helidonEchoPairsPerSecond,
            Double jdkDispatcherEchoPairsPerSecond,
            Double cyclesPerSecond,
            Double echoCyclesPerSecond,
            Double decidedShare,
            String policy,
            List<Fleet> fleets) {}

    /** One fleet size's figures; {@code cycles} only at {@link #HEADLINE_NODES} nodes. */
    record Fleet(int nodes, double bindsPerSecond, List<Row> latencies, List<Pairs> throughput, Cycles cycles) {}

    /**
     * Scheduling cycles per second with one caller in node-names mode, the extender's and the echo's: each the median
     * of {@link #ROUNDS} interleaved rounds, listed in {@code perRound}; {@code decidedShare} is the share of the
     * extender's filter calls that passed one node.
     */
    record Cycles(
            double cyclesPerSecond,
            double echoCyclesPerSecond,
            double decidedShare,
            Map<String, List<Double>> perRound) {}

    /** One verb's latency, milliseconds. */
    record Row(String mode, String verb, String server, double p50Ms, double p99Ms, double maxMs) {}

    /**
     * Filter+prioritize pairs per second, and the echoes' filter+filter pairs, with {@code callers} callers: each the
     * median of {@code rounds} measurements, listed in {@code perRound} by server. The Helidon and dispatcher echoes'
     * are null in full-node mode, which does not run them (and measures one round).
     */
    record Pairs(
            String mode,
            int callers,
            double pairsPerSecond,
            double echoPairsPerSecond,
            Double helidonEchoPairsPerSecond,
            Double jdkDispatcherEchoPairsPerSecond,
            int rounds,
            Map<String, List<Double>> perRound) {}

    /**
     * @param fullNodes whether to measure the full-node mode too
     * @param policy    the extender's placement policy
     */
    static Result run(List<Integer> fleetSizes, int requests, boolean fullNodes, PolicyName policy) throws Exception {
        System.out.printf(
                Locale.ROOT,
                "extender over HTTP on loopback, policy %s; %d cores; %d requests per row after warm-up%n",
                policy.text(),
                Runtime.getRuntime().availableProcessors(),
                requests);
        double loadBefore = NodeAgentBenchmark.loadAverage();
        List<String> failures = new ArrayList<>();
        List<Fleet> fleets = new ArrayList<>();
        for (int size : fleetSizes) {
            failures.addAll(fleet(size, requests, fullNodes, policy, fleets));
        }
        System.out.println();
        if (failures.isEmpty()) {
            System.out.println("all targets met");
        } else {
            failures.forEach(f -> System.out.println("target missed: " + f));
        }
        Pairs headline = fleets.stream()
                .filter(f -> f.nodes() == HEADLINE_NODES)
                .flatMap(f -> f.throughput().stream())
                .filter(p -> p.callers() == 1 && p.mode().equals("node-names"))
                .findFirst()
                .orElse(null);
        Cycles cycles = fleets.stream()
                .map(Fleet::cycles)
                .filter(java.util.Objects::nonNull)
                .findFirst()
                .orElse(null);
        return new Result(
                requests,
                Runtime.getRuntime().availableProcessors(),
                loadBefore,
                NodeAgentBenchmark.loadAverage(),
                headline == null ? null : headline.pairsPerSecond(),
                headline == null ? null : headline.echoPairsPerSecond(),
                headline == null ? null : headline.helidonEchoPairsPerSecond(),
                headline == null ? null : headline.jdkDispatcherEchoPairsPerSecond(),
                cycles == null ? null : cycles.cyclesPerSecond(),
                cycles == null ? null : cycles.echoCyclesPerSecond(),
                cycles == null ? null : cycles.decidedShare(),
                policy.text(),
                List.copyOf(fleets));
    }

    private static List<String> fleet(int size, int requests, boolean fullNodes, PolicyName policy, List<Fleet> fleets)
            throws Exception {
        InMemoryClusterApi api = new InMemoryClusterApi();
        List<Node> nodes = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            Node n = node(String.format(Locale.ROOT, "gpu-%05d", i), CARDS, i % 3 == 0 ? 40_960 : 81_920, 4);
            nodes.add(n);
            api.addNode(n);
        }
        ClusterCache cache = new ClusterCache(p -> PodAsks.asksGpu(p, PodAsks.Units.DEFAULT), 1);
        api.feed(cache);
        ExtenderConfig config = ExtenderConfig.builder()
                .withListen("127.0.0.1:0")
                .withPolicy(policy)
                .build();
        List<String> missed = new ArrayList<>();
        List<Row> rows = new ArrayList<>();
        List<Pairs> pairs = new ArrayList<>();
        double binds;
        Cycles cycles = null;
        System.out.printf(Locale.ROOT, "%n== %,d nodes, %,d cards ==%n", size, size * CARDS);
        try (ExtenderServer server = ExtenderService.serve(config, cache, api, () -> true);
                EchoExtender echo = EchoExtender.start();
                HelidonEcho helidon = HelidonEcho.start();
                JdkDispatcherEcho dispatcher = JdkDispatcherEcho.start();
                Loopback client = new Loopback()) {
            binds = bindPhase(client, server.port(), api, cache, nodes);
            System.out.printf(
                    Locale.ROOT,
                    "%n%-11s %-10s %-19s %9s %9s %9s %12s%n",
                    "mode",
                    "verb",
                    "server",
                    "p50 ms",
                    "p99 ms",
                    "max ms",
                    "p50 vs echo");
            for (boolean names : fullNodes ? new boolean[] {true, false} : new boolean[] {true}) {
                List<byte[]> bodies = filterBodies(nodes, names);
                String mode = names ? "node-names" : "full-nodes";
                Map<String, Integer> stacks = new LinkedHashMap<>();
                if (names) {
                    stacks.put(HELIDON, helidon.port());
                    stacks.put(JDK_DISPATCHER, dispatcher.port());
                }
                Map<String, Latency> echoes = echoLatencies(client, echo.port(), stacks, bodies, requests);
                Latency echoFilter = echoes.get("echo");
                echoes.forEach((stack, l) -> rows.add(row(mode, "filter", stack, l, echoFilter)));
                Latency filter = client.latency(server.port(), "filter", bodies, requests);
                Latency prioritize = client.latency(server.port(), "prioritize", bodies, requests);
                rows.add(row(mode, "filter", EXTENDER, filter, echoFilter));
                rows.add(row(mode, "prioritize", EXTENDER, prioritize, echoFilter));
                if (names && size >= 5000 && filter.p99() > TARGET_P99_MS) {
                    missed.add("filter p99 %.2f ms at %,d nodes in node-names mode (target < %.0f ms)"
                            .formatted(filter.p99(), size, TARGET_P99_MS));
                }
                missed.addAll(
                        throughput(client, server.port(), echo.port(), stacks, mode, bodies, requests, size, pairs));
                if (names && size == HEADLINE_NODES) {
                    cycles = cycles(client, server.port(), echo.port(), bodies, requests);
                }
            }
        }
        fleets.add(new Fleet(size, binds, List.copyOf(rows), List.copyOf(pairs), cycles));
        return missed;
    }

    /** Binds every pod it makes; returns binds per second. */
    private static double bindPhase(
            Loopback client, int port, InMemoryClusterApi api, ClusterCache cache, List<Node> nodes) throws Exception {
        List<byte[]> binds = new ArrayList<>();
        for (int i = 0; i < nodes.size() * 2; i++) {
            Pod p = shaped("bound-" + i, i);
            api.addPod(p);
            binds.add(JSON.writeValueAsBytes(Map.of(
                    "PodName",
                    p.getMetadata().getName(),
                    "PodNamespace",
                    "bench",
                    "PodUID",
                    p.getMetadata().getUid(),
                    "Node",
                    nodes.get(i % nodes.size()).getMetadata().getName())));
        }
        api.feed(cache);
        long start = System.nanoTime();
        int failed = client.sendAll(port, "bind", binds, 2);
        double seconds = (System.nanoTime() - start) / 1e9;
        api.feed(cache); // what the pod informer would deliver: the pods now bound, with their allocations
        System.out.printf(
                Locale.ROOT,
                "bind: %,d pods in %.2f s = %,.0f binds/s (2 callers, in-memory API, %d failed)%n",
                binds.size(),
                seconds,
                binds.size() / seconds,
                failed);
        if (failed > 0) {
            throw new IllegalStateException(failed + " binds failed on an empty fleet; the benchmark setup is wrong");
        }
        return binds.size() / seconds;
    }

    /**
     * Pairs per second of the extender and of each echo, with one caller and with two. In node-names mode, where the
     * other stacks run, {@link #ROUNDS} rounds, each contender once a round in an order that turns by one each round;
     * each figure is the contender's median. One measurement of about a second moves by 2x on a shared machine.
     */
    private static List<String> throughput(
            Loopback client,
            int port,
            int echoPort,
            Map<String, Integer> stacks,
            String mode,
            List<byte[]> bodies,
            int requests,
            int size,
            List<Pairs> out)
            throws Exception {
        List<String> missed = new ArrayList<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("echo", echoPort);
        ports.putAll(stacks);
        ports.put(EXTENDER, port);
        List<String> order = new ArrayList<>(ports.keySet());
        int rounds = stacks.isEmpty() ? 1 : ROUNDS;
        for (int callers : new int[] {1, 2}) {
            Map<String, List<Double>> measured = new LinkedHashMap<>();
            ports.keySet().forEach(c -> measured.put(c, new ArrayList<>())); // the printout's and the JSON's order
            for (int round = 0; round < rounds; round++) {
                for (String contender : order) {
                    String second = contender.equals(EXTENDER) ? "prioritize" : "filter";
                    measured.get(contender)
                            .add(pairsPerSecond(client, ports.get(contender), second, bodies, requests, callers));
                }
                order.addLast(order.removeFirst());
            }
            double pairs = median(measured.get(EXTENDER));
            double echo = median(measured.get("echo"));
            Double helidon = measured.containsKey(HELIDON) ? median(measured.get(HELIDON)) : null;
            Double dispatcher = measured.containsKey(JDK_DISPATCHER) ? median(measured.get(JDK_DISPATCHER)) : null;
            out.add(new Pairs(mode, callers, pairs, echo, helidon, dispatcher, rounds, measured));
            System.out.printf(
                    Locale.ROOT,
                    "%-11s filter+prioritize pairs/s, %d caller%s: elastic-gpu %,7.0f, echo %,7.0f (%.2fx echo; "
                            + "%.1fx the %,.0f target)%n",
                    mode,
                    callers,
                    callers == 1 ? " " : "s",
                    pairs,
                    echo,
                    pairs / echo,
                    pairs / TARGET_PAIRS_PER_SECOND,
                    TARGET_PAIRS_PER_SECOND);
            measured.forEach((contender, each) -> System.out.printf(
                    Locale.ROOT,
                    rounds == 1 ? "" : "%-11s %d caller%s: %-19s median %,7.0f pairs/s (%.2fx echo) of %d rounds %s%n",
                    mode,
                    callers,
                    callers == 1 ? " " : "s",
                    contender,
                    median(each),
                    median(each) / echo,
                    each.size(),
                    each.stream().map(v -> "%,.0f".formatted(v)).toList()));
            if (callers == 1 && mode.equals("node-names") && size <= 1000 && pairs < TARGET_PAIRS_PER_SECOND) {
                missed.add("%,.0f pairs/s at %,d nodes in node-names mode (target >= %,.0f)"
                        .formatted(pairs, size, TARGET_PAIRS_PER_SECOND));
            }
        }
        return missed;
    }

    /**
     * Each echo's filter latency. With the other stacks (node-names mode), every echo is warmed up first and the
     * timed calls are made in {@link #ROUNDS} rounds in an order that turns, as for throughput, so that neither the
     * JIT's warming of the shared JSON code nor the machine's load favours the stack measured later.
     */
    private static Map<String, Latency> echoLatencies(
            Loopback client, int echoPort, Map<String, Integer> stacks, List<byte[]> bodies, int requests)
            throws Exception {
        Map<String, Latency> out = new LinkedHashMap<>();
        if (stacks.isEmpty()) {
            out.put("echo", client.latency(echoPort, "filter", bodies, requests));
            return out;
        }
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("echo", echoPort);
        ports.putAll(stacks);
        for (int port : ports.values()) {
            client.timings(port, "filter", bodies, requests);
        }
        Map<String, long[]> timed = new LinkedHashMap<>();
        ports.keySet().forEach(s -> timed.put(s, new long[0]));
        List<String> order = new ArrayList<>(ports.keySet());
        for (int round = 0; round < ROUNDS; round++) {
            int calls = requests / ROUNDS + (round < requests % ROUNDS ? 1 : 0);
            for (String stack : order) {
                long[] before = timed.get(stack);
                long[] more = client.timings(ports.get(stack), "filter", bodies, calls);
                long[] all = Arrays.copyOf(before, before.length + more.length);
                System.arraycopy(more, 0, all, before.length, more.length);
                timed.put(stack, all);
            }
            order.addLast(order.removeFirst());
        }
        timed.forEach((stack, nanos) -> out.put(stack, Latency.of(nanos)));
        return out;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * Scheduling cycles per second of the extender and of the echo, one caller, {@link #ROUNDS} rounds in an order
     * that turns; see {@link Cycles}.
     */
    private static Cycles cycles(Loopback client, int port, int echoPort, List<byte[]> bodies, int requests)
            throws Exception {
        Map<String, List<Double>> measured = new LinkedHashMap<>();
        measured.put("echo", new ArrayList<>());
        measured.put(EXTENDER, new ArrayList<>());
        long[] decided = new long[2]; // filter calls that passed one node, all filter calls (the extender's)
        for (int round = 0; round < ROUNDS; round++) {
            for (String contender : round % 2 == 0 ? List.of("echo", EXTENDER) : List.of(EXTENDER, "echo")) {
                boolean extender = contender.equals(EXTENDER);
                long[] counted = extender ? decided : new long[2];
                measured.get(contender)
                        .add(cyclesPerSecond(
                                client,
                                extender ? port : echoPort,
                                extender ? "prioritize" : "filter",
                                bodies,
                                requests,
                                counted));
            }
        }
        Cycles c = new Cycles(
                median(measured.get(EXTENDER)),
                median(measured.get("echo")),
                decided[1] == 0 ? 0 : (double) decided[0] / decided[1],
                measured);
        System.out.printf(
                Locale.ROOT,
                "node-names  scheduling cycles/s (filter; prioritize with what passed, when more than one), 1 caller:"
                        + " elastic-gpu %,7.0f, echo %,7.0f (%.2fx echo); the filter passed one node in %.0f %% of"
                        + " its calls%n",
                c.cyclesPerSecond(),
                c.echoCyclesPerSecond(),
                c.cyclesPerSecond() / c.echoCyclesPerSecond(),
                100 * c.decidedShare());
        measured.forEach((contender, each) -> System.out.printf(
                Locale.ROOT,
                "node-names  cycles, 1 caller : %-19s median %,7.0f of %d rounds %s%n",
                contender,
                median(each),
                each.size(),
                each.stream().map(v -> "%,.0f".formatted(v)).toList()));
        return c;
    }

    /**
     * {@code requests} scheduling cycles, one at a time: the filter with every node, then {@code second} with the nodes
     * it passed when it passed more than one (the same body when it passed every node). Counts in {@code decided} the
     * filter calls that passed one node and all of them.
     */
    private static double cyclesPerSecond(
            Loopback client, int port, String second, List<byte[]> bodies, int requests, long[] decided)
            throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < requests; i++) {
            byte[] body = bodies.get(i % bodies.size());
            List<String> passed = passedNodes(client.post(port, "filter", body));
            decided[1]++;
            if (passed.size() == 1) {
                decided[0]++;
            } else if (passed.size() > 1) {
                JsonNode args = JSON.readTree(body);
                client.post(
                        port,
                        second,
                        passed.size() == args.get("NodeNames").size()
                                ? body
                                : JSON.writeValueAsBytes(Map.of("Pod", args.get("Pod"), "NodeNames", passed)));
            }
        }
        return requests / ((System.nanoTime() - start) / 1e9);
    }

    /** The node names a filter answer passes, as kube-scheduler reads them (node-names mode). */
    static List<String> passedNodes(String answer) throws IOException {
        List<String> out = new ArrayList<>();
        try (JsonParser p = JSON.getFactory().createParser(answer)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("a filter answer that is not a JSON object: " + answer);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("NodeNames") && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.VALUE_STRING) {
                        out.add(p.getText());
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return out;
    }

    /** Pairs of calls (filter, then {@code second}) per second, {@code requests} pairs spread over {@code callers}. */
    private static double pairsPerSecond(
            Loopback client, int port, String second, List<byte[]> bodies, int requests, int callers) throws Exception {
        long start = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(callers)) {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                done.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < requests; i = next.getAndIncrement()) {
                        byte[] body = bodies.get(i % bodies.size());
                        client.post(port, "filter", body);
                        client.post(port, second, body);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        return requests / ((System.nanoTime() - start) / 1e9);
    }

    /** One request body per pod shape, each listing every node (the worst case: kube-scheduler filtered none out). */
    private static List<byte[]> filterBodies(List<Node> nodes, boolean names) throws Exception {
        List<byte[]> bodies = new ArrayList<>();
        for (int shape = 0; shape < SHAPES.size(); shape++) {
            Map<String, Object> args = new LinkedHashMap<>();
            args.put("Pod", shaped("asking-" + shape, shape));
            if (names) {
                args.put(
                        "NodeNames",
                        nodes.stream().map(n -> n.getMetadata().getName()).toList());
            } else {
                args.put("Nodes", new NodeListBuilder().withItems(nodes).build());
            }
            bodies.add(JSON.writeValueAsBytes(args));
        }
        return bodies;
    }

    /** The mix of asks: memory slices, compute-and-memory slices, one whole card, four NVLinked cards. */
    private static final List<Map<String, String>> SHAPES = List.of(
            Map.of("elasticgpu.io/gpu-memory", "8192"),
            Map.of("elasticgpu.io/gpu-core", "30", "elasticgpu.io/gpu-memory", "4096"),
            Map.of("elasticgpu.io/gpu-memory", "20000"),
            Map.of("elasticgpu.io/gpu", "1"),
            Map.of("elasticgpu.io/gpu-core", "50"),
            Map.of("elasticgpu.io/gpu", "4"));

    private static Pod shaped(String name, int i) {
        // Binding two 4-card pods on one 8-card node would fill it; the bind phase skips that shape.
        Map<String, String> limits = SHAPES.get(name.startsWith("bound") ? i % (SHAPES.size() - 1) : i % SHAPES.size());
        return pod("bench", name, "uid-" + name, container("main", limits));
    }

    private static Row row(String mode, String verb, String server, Latency l, Latency baseline) {
        System.out.printf(
                Locale.ROOT,
                "%-11s %-10s %-19s %9.2f %9.2f %9.2f %11.1fx%n",
                mode,
                verb,
                server,
                l.p50(),
                l.p99(),
                l.max(),
                l.p50() / baseline.p50());
        return new Row(mode, verb, server, l.p50(), l.p99(), l.max());
    }
}
