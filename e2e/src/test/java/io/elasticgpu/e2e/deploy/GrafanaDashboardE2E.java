package io.elasticgpu.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.api.v1alpha1.NodeLabels;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.api.v1alpha1.ResourceNames;
import io.elasticgpu.e2e.junit.ControlPlaneExtension;
import io.elasticgpu.e2e.junit.TestCluster;
import io.elasticgpu.localcluster.components.EgpuProcess;
import io.elasticgpu.localcluster.components.Metrics;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ElasticGPUCrds;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.isolation.MpsDirs;
import io.elasticgpu.node.isolation.MpsStandIn;
import io.elasticgpu.node.kubelet.Admission;
import io.elasticgpu.node.kubelet.DriverBinary;
import io.elasticgpu.node.kubelet.KubeletDriver;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's Grafana dashboard ({@code deploy/helm/elastic-gpu/dashboards/elastic-gpu.json}) queries only metrics
 * that the running components export: the extender ({@code egpu scheduler}, with the real kube-scheduler calling it),
 * the controller ({@code egpu controller}), a node agent ({@code egpu node-agent} against kubelet's own device
 * manager, simulated cards whose processes the test makes up, isolation by MPS with the node module's stand-in
 * daemon), and, for the panels that say so in their title, kube-scheduler itself. The components are put through
 * what makes every series of the dashboard appear (labelled counters and per-container gauges have no sample until
 * something happens): a pod placed by the extender on both cards of a node, a slice turned away there, a pod of
 * higher priority for which the extender picks the victim, a pod allocated by the agent whose share's MPS client holds
 * memory and SMs, a process of no pod, and an MPS daemon that dies. Then each is scraped, and
 * every metric name in every query of every panel and template variable must be in a scrape.
 */
@ExtendWith(ControlPlaneExtension.class)
class GrafanaDashboardE2E {

    static final Path DASHBOARD = RenderedChart.DEPLOY.resolve("helm/elastic-gpu/dashboards/elastic-gpu.json");
    private static final Path SCHEDULER_TEMPLATE = Path.of("src/test/resources/scheduler/extender.yaml");
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** The priority class of the pod that preempts. */
    private static final String HIGH = "egpu-grafana-high";

    private static final String CARDS = """
            driverVersion: "570.86.15"
            usage: true
            cards:
              - {model: Tesla T4, memoryMiB: 15360, count: 2}
            """;
    /** The node module's stand-in for NVIDIA's nvidia-cuda-mps-control. */
    private static final Path MPS_STAND_IN = RenderedChart.DEPLOY
            .toAbsolutePath()
            .getParent()
            .resolve("node/src/test/resources/mps/nvidia-cuda-mps-control");

    @TempDir
    Path dir;

    /** The controller refuses to start without them. */
    @BeforeAll
    static void applyTheCrds(ControlPlane controlPlane) {
        ElasticGPUCrds.apply(controlPlane);
    }

    @Test
    void everyMetricThePanelsQueryIsInALiveScrapeOfOurComponentsOrKubeScheduler(TestCluster cluster) throws Exception {
        ControlPlane cp = cluster.controlPlane();
        KubernetesClient client = cluster.client();
        List<String> nodes = cluster.createGpuNodes(
                List.of(GpuNodeSpec.of("agent", 2, "Tesla-T4", 15_360), GpuNodeSpec.of("fake", 2, "Tesla-T4", 15_360)));
        String agentNode = nodes.get(0);
        String fakeNode = nodes.get(1);
        Path mps = dir.resolve("mps");
        List<Process> processes = new ArrayList<>();
        EgpuProcess extender = null;
        ManagedProcess agent = null;
        client.resource(new PriorityClassBuilder()
                        .withNewMetadata()
                        .withName(HIGH)
                        .endMetadata()
                        .withValue(1_000)
                        .build())
                .createOr(existing -> existing.update());
        try (EgpuProcess controller = EgpuProcess.start(
                        "controller",
                        List.of("--kubeconfig", cp.kubeconfig().toString(), "--no-leader-election", "--no-webhook"),
                        log(cp, "controller"));
                KubeletDriver kubelet = KubeletDriver.start(driver())) {
            extender = EgpuProcess.start(
                    "scheduler", List.of("--kubeconfig", cp.kubeconfig().toString()), log(cp, "extender"));
            cp.restartScheduler(SCHEDULER_TEMPLATE, extender.url());

            // The extender places a pod on both cards, turns the node away for a slice, and picks the victim when
            // a pod of higher priority asks a card.
            var pods = client.pods().inNamespace(cluster.namespace());
            pods.resource(extenderPod("low", fakeNode, Map.of(ResourceNames.GPU, "2"), null))
                    .create();
            await().atMost(WAIT)
                    .until(() ->
                            fakeNode.equals(pods.withName("low").get().getSpec().getNodeName()));
            pods.resource(extenderPod("waiting", fakeNode, Map.of(ResourceNames.GPU_MEMORY, "1024"), null))
                    .create();
            String extenderUrl = extender.url();
            await().atMost(WAIT)
                    .until(() -> Metrics.scrape(extenderUrl), t -> t.contains("egpu_extender_node_failures_total{"));
            pods.resource(extenderPod("high", fakeNode, Map.of(ResourceNames.GPU, "1"), HIGH))
                    .create();
            await().atMost(WAIT)
                    .until(() -> fakeNode.equals(
                            pods.withName("high").get().getSpec().getNodeName()));
            await().atMost(WAIT)
                    .until(() -> Metrics.scrape(extenderUrl), t -> t.contains("egpu_extender_preemption_nodes_total{"));

            // The node agent allocates a share through MPS to a pod kubelet admits.
            int agentPort = Ports.free();
            agent = startAgent(cp, agentNode, kubelet, mps, agentPort);
            kubelet.await(ResourceNames.GPU_MEMORY, 2 * 15_360 / 64, WAIT);
            String uuid = await().atMost(WAIT).until(() -> cardUuid(client, agentNode, 1), u -> u != null);
            Pod held = pods.resource(agentPod("held", agentNode, new Share(1, uuid, 0, 4096)))
                    .create();
            assertThat(kubelet.admit(held)).isInstanceOf(Admission.Admitted.class);
            MpsDirs share = await().atMost(WAIT).until(() -> onlyShare(mps), d -> d != null);

            // Its share's MPS server and client, and a process of no pod on the other card, as NVML would list them.
            Process server = sleeper(processes);
            Process mpsClient = sleeper(processes);
            Process host = sleeper(processes);
            MpsStandIn.serve(share, server.pid(), mpsClient.pid());
            Files.writeString(
                    dir.resolve("node.yaml.events"),
                    "process 1 %d 300 5\nprocess 1 %d 1024 40\nprocess 0 %d 200\n"
                            .formatted(server.pid(), mpsClient.pid(), host.pid()),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            String agentUrl = "http://127.0.0.1:" + agentPort;
            await().atMost(WAIT)
                    .until(
                            () -> Metrics.scrape(agentUrl),
                            t -> t.contains("egpu_node_agent_container_gpu_sm_percent{"));
            // The share's daemon dies: the agent starts it again and counts it.
            MpsStandIn.killAll(mps);
            await().atMost(WAIT)
                    .until(
                            () -> Metrics.scrape(agentUrl),
                            t -> t.contains("egpu_node_agent_isolation_events_total{")
                                    && t.contains("reason=\"GpuShareDaemonRestarted\""));
            Map<String, String> scrapes = new LinkedHashMap<>();
            scrapes.put("extender", Metrics.scrape(extenderUrl));
            scrapes.put("controller", Metrics.scrape(controller.url()));
            scrapes.put("node agent", Metrics.scrape(agentUrl));
            String kubeScheduler = kubeSchedulerMetrics(cp);

            Map<String, Set<String>> exported = new LinkedHashMap<>();
            scrapes.forEach((component, text) -> exported.put(component, sampleNames(text)));
            Set<String> fromKubeScheduler = sampleNames(kubeScheduler);
            List<String> missing = new ArrayList<>();
            int checked = 0;
            for (Query q : queries(new ObjectMapper().readTree(DASHBOARD.toFile()))) {
                for (String metric : metricNames(q.expr())) {
                    checked++;
                    boolean ours = exported.values().stream().anyMatch(s -> s.contains(metric));
                    boolean kubeSchedulers =
                            fromKubeScheduler.contains(metric) && q.title().contains("kube-scheduler");
                    if (!ours && !kubeSchedulers) {
                        missing.add("%s (panel \"%s\": %s)".formatted(metric, q.title(), q.expr()));
                    }
                }
            }
            assertThat(missing)
                    .as(
                            "metrics the dashboard queries that no scrape of %s has (kube-scheduler's count only in"
                                    + " panels"
                                    + " whose title names kube-scheduler)",
                            exported.keySet())
                    .isEmpty();
            assertThat(checked).as("metric names read from the dashboard").isGreaterThan(30);
        } finally {
            if (agent != null) {
                agent.stop(Duration.ofSeconds(10));
            }
            MpsStandIn.killAll(mps); // the stand-in's daemons outlive the agent by design
            processes.forEach(Process::destroyForcibly);
            if (extender != null) {
                extender.close();
            }
            cp.restartScheduler(null);
            client.resources(PriorityClass.class).withName(HIGH).delete();
        }
    }

    /** The reader of queries finds metric names, and only those, in the shapes the dashboard uses. */
    @Test
    void metricNamesAreReadFromPromqlWithoutFunctionsKeywordsLabelsOrVariables() {
        assertThat(metricNames("histogram_quantile(0.99, sum by (verb, le)"
                        + " (rate(egpu_extender_request_seconds_bucket[$__rate_interval])))"))
                .containsExactly("egpu_extender_request_seconds_bucket");
        assertThat(metricNames("sum by (node) ((egpu_card_memory_capacity_mib{node=~\"$node\"} -"
                        + " egpu_card_memory_allocated_mib{node=~\"$node\"}) and (egpu_card_memory_allocated_mib > 0))"
                        + " / sum(x_total offset 5m) unless on (instance) group_left (node) y == bool 1e3"))
                .containsExactlyInAnyOrder(
                        "egpu_card_memory_capacity_mib", "egpu_card_memory_allocated_mib", "x_total", "y");
        assertThat(metricNames("topk(10, {__name__=\"z\"}) + count without (card) (w:recorded[5m:1m])"))
                .containsExactlyInAnyOrder("z", "w:recorded");
        assertThat(metricNames("label_values(egpu_card_memory_capacity_mib, node)"))
                .containsExactly("egpu_card_memory_capacity_mib");
        assertThat(metricNames("label_values(node)")).isEmpty();
        assertThat(metricNames("sum by (node) (a) / count without (card) (b) + max(c)"))
                .containsExactlyInAnyOrder("a", "b", "c");
    }

    /** One query of the dashboard and the title of the panel (or variable) it belongs to. */
    record Query(String title, String expr) {}

    /** Every query: each target's {@code expr} of every panel (rows' panels too), and the template variables'. */
    static List<Query> queries(JsonNode dashboard) {
        List<Query> found = new ArrayList<>();
        List<JsonNode> panels = new ArrayList<>();
        dashboard.path("panels").forEach(p -> {
            panels.add(p);
            p.path("panels").forEach(panels::add);
        });
        for (JsonNode p : panels) {
            p.path("targets").forEach(t -> {
                if (t.hasNonNull("expr")) {
                    found.add(new Query(p.path("title").asText(), t.get("expr").asText()));
                }
            });
        }
        dashboard.path("templating").path("list").forEach(v -> {
            if (v.path("type").asText().equals("query")) {
                JsonNode q = v.path("query");
                found.add(new Query(
                        "variable " + v.path("name").asText(),
                        q.isObject() ? q.path("query").asText() : q.asText()));
            }
        });
        return found;
    }

    /** Words of PromQL that are no metric: keywords, and aggregations (followed by their by/without clause). */
    private static final Set<String> KEYWORDS = Set.of(
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "bool",
            "and",
            "or",
            "unless",
            "offset",
            "atan2",
            "inf",
            "nan",
            "start",
            "end",
            "sum",
            "min",
            "max",
            "avg",
            "group",
            "stddev",
            "stdvar",
            "count",
            "count_values",
            "bottomk",
            "topk",
            "quantile",
            "limitk",
            "limit_ratio");

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern LABEL_LIST =
            Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w$:.])[a-zA-Z_:][a-zA-Z0-9_:]*+(?!\\s*\\()");
    private static final Pattern NAME_MATCHER = Pattern.compile("__name__\\s*=\\s*\"([^\"]+)\"");
    private static final Pattern LABEL_VALUES =
            Pattern.compile("^\\s*label_values\\(\\s*(?:(.*),)?\\s*\\w+\\s*\\)\\s*$");

    /**
     * The metric names a PromQL expression (or Grafana's {@code label_values(metric, label)}) reads: identifiers
     * not followed by {@code (} (functions, aggregations), outside strings, selectors' braces, ranges, label lists
     * of {@code by}, {@code on} and the like, not keywords and not Grafana variables; plus names given as
     * {@code __name__="..."}.
     */
    static Set<String> metricNames(String expr) {
        Matcher lv = LABEL_VALUES.matcher(expr);
        if (lv.matches()) {
            return lv.group(1) == null ? Set.of() : metricNames(lv.group(1));
        }
        Set<String> names = new TreeSet<>();
        Matcher byName = NAME_MATCHER.matcher(expr);
        while (byName.find()) {
            names.add(byName.group(1));
        }
        String s = STRING.matcher(expr).replaceAll("\"\"");
        s = s.replaceAll("\\{[^}]*}", "{}").replaceAll("\\[[^]]*]", "[]");
        s = LABEL_LIST.matcher(s).replaceAll("$1");
        Matcher id = IDENTIFIER.matcher(s);
        while (id.find()) {
            String word = id.group();
            if (!KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                names.add(word);
            }
        }
        return names;
    }

    /** The names of the samples in a scrape (histograms' {@code _bucket}, {@code _sum}, {@code _count} included). */
    static Set<String> sampleNames(String text) {
        Set<String> names = new TreeSet<>();
        text.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).forEach(l -> names.add(l.split("[{ ]", 2)[0]));
        return names;
    }

    /** kube-scheduler's own /metrics, read with the control plane's admin certificate. */
    private static String kubeSchedulerMetrics(ControlPlane cp) throws Exception {
        HttpClient https =
                HttpClient.newBuilder().sslContext(cp.credentials().adminTls()).build();
        HttpResponse<String> r = https.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:%d/metrics"
                                .formatted(cp.ports().get("kube-scheduler"))))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    /** {@code egpu node-agent} against the kubelet driver, simulated cards of {@code node.yaml}, MPS by stand-in. */
    private ManagedProcess startAgent(ControlPlane cp, String node, KubeletDriver kubelet, Path mps, int port)
            throws Exception {
        Path yaml = Files.writeString(dir.resolve("node.yaml"), CARDS);
        Path program = Files.createDirectories(dir.resolve("mps-bin")).resolve("nvidia-cuda-mps-control");
        Files.copy(MPS_STAND_IN, program, StandardCopyOption.REPLACE_EXISTING);
        assertThat(program.toFile().setExecutable(true)).isTrue();
        List<String> line = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-jar",
                EgpuProcess.jar().toString(),
                "node-agent",
                "--kubeconfig",
                cp.kubeconfig().toString(),
                "--node-name",
                node,
                "--backend",
                "simulated",
                "--simulated-gpus",
                yaml.toString(),
                "--device-plugin-dir",
                kubelet.pluginDir().toString(),
                "--pod-resources-socket",
                kubelet.podResourcesSocket().toString(),
                "--memory-block-mib",
                "64",
                "--isolation",
                "mps",
                "--mps-control",
                program.toString(),
                "--mps-root",
                mps.toString(),
                "--usage-interval",
                "PT1S",
                "--metrics-listen",
                "127.0.0.1:" + port));
        ManagedProcess p = ManagedProcess.start("node-agent-grafana", line, log(cp, "node-agent"));
        p.awaitAnswering(URI.create("http://127.0.0.1:" + port + "/healthz"), WAIT);
        return p;
    }

    private static Path log(ControlPlane cp, String name) {
        return cp.workDir().resolve("logs").resolve("grafana-" + name + "-" + System.nanoTime() + ".log");
    }

    private static Path driver() {
        return switch (DriverBinary.locate()) {
            case DriverBinary.Found(Path path) -> path;
            case DriverBinary.GoMissing(String message) -> throw new IllegalStateException(message);
        };
    }

    /** A process that holds nothing and waits, standing for a CUDA process (ended by the test). */
    private static Process sleeper(List<Process> started) throws Exception {
        Process p = new ProcessBuilder("sleep", "600").start();
        started.add(p);
        return p;
    }

    /** The one share directory under {@code root} once the agent made it, else null. */
    private static MpsDirs onlyShare(Path root) throws Exception {
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> shares = Files.list(root)) {
            List<Path> dirs = shares.filter(Files::isDirectory).toList();
            return dirs.size() == 1 ? new MpsDirs(dirs.getFirst()) : null;
        }
    }

    /** The uuid of card {@code index} once the agent (not kwok's start-up inventory) has published it. */
    private static String cardUuid(KubernetesClient client, String node, int index) {
        var meta = client.nodes().withName(node).get().getMetadata();
        return "570.86.15".equals(meta.getLabels().get(NodeLabels.DRIVER))
                ? NodeInventory.fromJson(meta.getAnnotations().get(Annotations.INVENTORY))
                        .cards()
                        .get(index)
                        .uuid()
                : null;
    }

    /** A pod the extender places: {@code limits}, on {@code node} only, of {@code priorityClass} unless null. */
    private static Pod extenderPod(String name, String node, Map<String, String> limits, String priorityClass) {
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        limits.forEach((k, v) -> quantities.put(k, new Quantity(v)));
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withPriorityClassName(priorityClass)
                .withNodeSelector(Map.of("kubernetes.io/hostname", node))
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .withLimits(quantities)
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    /** A pod bound to {@code node} with {@code planned} as its allocation, as the extender leaves it for kubelet. */
    private static Pod agentPod(String name, String node, Share planned) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .addToAnnotations(Annotations.ALLOCATION, new PodGrant(node, Map.of("main", List.of(planned))).toJson())
                .addToAnnotations(Annotations.ASSUME_TIME, Long.toString(System.nanoTime()))
                .addToAnnotations(Annotations.PHASE, Annotations.PHASE_ASSUMED)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withImage("registry.example/train:1")
                .withNewResources()
                .addToLimits(ResourceNames.GPU_MEMORY, new Quantity("64"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }
}
