package io.elasticgpu.localcluster.controlplane;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok, on loopback ports chosen when started,
 * with generated certificates, RBAC and admission webhooks on. {@link #start} returns when every component is
 * ready; {@link #close} stops them all and checks their ports are free again. A JVM shutdown hook stops them too,
 * so a failing or killed test run leaves nothing behind; {@link #detach} hands them over to
 * {@code e2e/bin/cluster up} ({@link DetachedCluster}).
 * It is over 400 lines because it starts five processes in order, each with its flags, certificates and readiness
 * check, which a reader compares with each other in one place.
 */
public final class ControlPlane implements AutoCloseable {

    /** Annotation (with value {@code fake}) that marks the nodes kwok plays the kubelet for. */
    public static final String KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";
    /** The namespace whose service accounts' requests {@link #auditLog()} records: where the chart installs. */
    public static final String AUDITED_NAMESPACE = "elastic-gpu-system";

    private static final Duration GRACE = Duration.ofSeconds(10);

    /**
     * @param workDir         where certificates, kubeconfigs, data and logs go
     * @param schedulerConfig a {@code KubeSchedulerConfiguration}, or null for the default profile; its
     *                        {@code clientConnection.kubeconfig} and {@code leaderElection} are filled in
     * @param readyTimeout    how long each component may take to become ready
     */
    public record Options(Path workDir, Binaries binaries, Path schedulerConfig, Duration readyTimeout) {
        public Options {
            requireNonNull(workDir, "workDir");
            requireNonNull(binaries, "binaries");
            requireNonNull(readyTimeout, "readyTimeout");
        }

        public static Options of(Path workDir, Binaries binaries) {
            return new Options(workDir, binaries, null, Duration.ofSeconds(90));
        }

        public Options withSchedulerConfig(Path config) {
            return new Options(workDir, binaries, config, readyTimeout);
        }
    }

    private final Options options;
    private final Credentials credentials;
    private final ComponentFiles files;
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, ManagedProcess> processes = new LinkedHashMap<>();
    private final HttpClient probe;
    private final Thread shutdownHook = new Thread(this::stopAll, "control-plane-shutdown");
    private volatile boolean closed;
    private volatile Path schedulerConfigInUse;

    private ControlPlane(Options options) {
        this.options = options;
        this.credentials = Credentials.create(options.workDir(), InstantSource.system());
        this.files = new ComponentFiles(options.workDir(), credentials);
        this.probe = HttpClient.newBuilder()
                .sslContext(credentials.adminTls())
                .connectTimeout(Duration.ofSeconds(2))
                .build();
    }

    /**
     * Starts every component and waits until each is ready.
     *
     * @throws IllegalStateException when a program is missing, a port is taken, or a component fails to start (with
     *                               the end of its log); whatever was started is stopped again
     */
    public static ControlPlane start(Options options) {
        options.binaries().requirePresent();
        try {
            Files.createDirectories(options.workDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + options.workDir(), e);
        }
        ControlPlane cp = new ControlPlane(options);
        Runtime.getRuntime().addShutdownHook(cp.shutdownHook);
        try {
            for (String component : List.of(
                    "etcd", "etcd-peer", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")) {
                int port = Ports.free();
                Ports.requireFree(port, component);
                cp.ports.put(component, port);
            }
            cp.files.writeKubeconfigs(cp.kubeconfig(), cp.server());
            cp.startEtcd();
            cp.startApiserver();
            Ports.startRebinding("kube-controller-manager", cp.ports, cp::startControllerManager);
            Ports.startRebinding("kube-scheduler", cp.ports, () -> cp.startScheduler(options.schedulerConfig()));
            Ports.startRebinding("kwok", cp.ports, cp::startKwok);
            return cp;
        } catch (RuntimeException e) {
            cp.close();
            throw e;
        }
    }

    /**
     * Deletes the cluster's stored objects (etcd's data in {@code <workDir>/etcd}) so that the next start begins with
     * an empty cluster; certificates and logs stay. Call it only while no control plane runs in {@code workDir}.
     */
    public static void deleteData(Path workDir) throws IOException {
        Path data = workDir.resolve("etcd");
        if (!Files.exists(data)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(data)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The admin kubeconfig ({@code system:masters}). */
    public Path kubeconfig() {
        return options.workDir().resolve("kubeconfig");
    }

    public String server() {
        return "https://127.0.0.1:" + ports.get("kube-apiserver");
    }

    public Path workDir() {
        return options.workDir();
    }

    public Binaries binaries() {
        return options.binaries();
    }

    /** The authority that signed every certificate here, for components that serve TLS to the apiserver. */
    public Credentials credentials() {
        return credentials;
    }

    /** A new admin client; the caller closes it. */
    public KubernetesClient newClient() {
        try {
            Config config = Config.fromKubeconfig(Files.readString(kubeconfig()));
            config.setRequestTimeout(30_000);
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + kubeconfig(), e);
        }
    }

    /**
     * Stops kube-scheduler and starts it again with the configuration {@code template} calling the extender at
     * {@code extenderUrl} (its {@code ${EXTENDER_URL}}), written beside the control plane's other files.
     */
    public void restartScheduler(Path template, String extenderUrl) {
        try {
            String yaml = Files.readString(template).replace("${EXTENDER_URL}", extenderUrl);
            restartScheduler(Files.writeString(workDir().resolve("scheduler-" + template.getFileName()), yaml));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write a scheduler configuration from " + template, e);
        }
    }

    /** Stops kube-scheduler and starts it again with {@code config} (null: the default profile). */
    public void restartScheduler(Path config) {
        stopComponent("kube-scheduler");
        Ports.startRebinding("kube-scheduler", ports, () -> startScheduler(config));
    }

    /**
     * SIGKILLs one component, as a crash would, and starts it again on the same port with the same configuration
     * (kube-scheduler with the one it last ran); etcd's data, and so the cluster's objects, stay.
     *
     * @param down how long it stays away before it starts again
     */
    public void crash(String name, Duration down) {
        ManagedProcess p = processes.remove(name);
        if (p == null) {
            throw new IllegalArgumentException("no running component " + name + "; running: " + processes.keySet());
        }
        p.kill();
        Poll.sleep(down);
        switch (name) {
            case "kube-apiserver" -> startApiserver();
            case "kube-scheduler" -> startScheduler(schedulerConfigInUse);
            case "kube-controller-manager" -> startControllerManager();
            case "kwok" -> startKwok();
            default -> throw new IllegalArgumentException("cannot restart " + name);
        }
    }

    /** Stops one component, e.g. to test what happens while it is away. */
    public void stopComponent(String name) {
        ManagedProcess p = processes.remove(name);
        if (p != null) {
            p.stop(GRACE);
        }
    }

    public Map<String, Integer> ports() {
        return Map.copyOf(ports);
    }

    /** The pid of every running component, by name. */
    public Map<String, Long> pids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        processes.forEach((name, p) -> pids.put(name, p.pid()));
        return pids;
    }

    /**
     * Leaves the components running after this JVM exits and records how to find them in
     * {@code <workDir>/cluster.properties} ({@link DetachedCluster}).
     */
    public DetachedCluster detach() {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
        DetachedCluster detached = new DetachedCluster(options.workDir(), pids(), ports, server(), kubeconfig());
        detached.write();
        closed = true;
        return detached;
    }

    /** Whether the apiserver answers {@code /readyz}. */
    public boolean apiserverReady() {
        try {
            return https("https://127.0.0.1:%d/readyz".formatted(ports.get("kube-apiserver")))
                    .call();
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or ran: it stops everything
        }
        stopAll();
        List<Integer> bound =
                ports.values().stream().filter(port -> !Ports.awaitFree(port)).toList();
        if (!bound.isEmpty()) {
            throw new IllegalStateException("ports still bound after stopping the control plane: " + bound);
        }
    }

    private synchronized void stopAll() {
        List<String> names = new ArrayList<>(processes.keySet());
        for (int i = names.size() - 1; i >= 0; i--) {
            processes.remove(names.get(i)).stop(GRACE);
        }
    }

    private void startEtcd() {
        int client = ports.get("etcd");
        int peer = ports.get("etcd-peer");
        run(
                "etcd",
                List.of(
                        bin(options.binaries().etcd()),
                        "--name=e2e",
                        "--data-dir=" + path("etcd"),
                        "--listen-client-urls=http://127.0.0.1:" + client,
                        "--advertise-client-urls=http://127.0.0.1:" + client,
                        "--listen-peer-urls=http://127.0.0.1:" + peer,
                        "--initial-advertise-peer-urls=http://127.0.0.1:" + peer,
                        "--initial-cluster=e2e=http://127.0.0.1:" + peer,
                        "--log-level=warn",
                        // a test cluster need not survive a power cut; fsync makes every write wait for the disk
                        "--unsafe-no-fsync=true"),
                () -> get(HttpClient.newHttpClient(), "http://127.0.0.1:%d/health".formatted(client))
                        .contains("\"health\":\"true\""));
    }

    /**
     * The API server's audit log (JSON lines): the requests of Elastic GPU's service accounts (any user in a group
     * {@code system:serviceaccounts:elastic-gpu-system}), at Metadata level; nobody else's, so it stays small.
     */
    public Path auditLog() {
        return options.workDir().resolve("logs").resolve("audit.log");
    }

    private void startApiserver() {
        int port = ports.get("kube-apiserver");
        run(
                "kube-apiserver",
                List.of(
                        bin(options.binaries().kubeApiserver()),
                        "--audit-policy-file=" + files.auditPolicy(AUDITED_NAMESPACE),
                        "--audit-log-path=" + auditLog(),
                        "--audit-log-maxsize=100",
                        "--audit-log-maxbackup=1",
                        "--etcd-servers=http://127.0.0.1:" + ports.get("etcd"),
                        "--bind-address=127.0.0.1",
                        "--advertise-address=127.0.0.1",
                        "--secure-port=" + port,
                        "--cert-dir=" + path("apiserver"),
                        "--tls-cert-file=" + credentials.certificate("apiserver"),
                        "--tls-private-key-file=" + credentials.key("apiserver"),
                        "--client-ca-file=" + credentials.certificate("ca"),
                        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                        "--service-account-key-file=" + credentials.dir().resolve("sa.pub"),
                        "--service-account-signing-key-file="
                                + credentials.dir().resolve("sa.key"),
                        "--service-cluster-ip-range=10.96.0.0/16",
                        "--authorization-mode=Node,RBAC",
                        "--requestheader-client-ca-file=" + credentials.certificate("ca"),
                        "--requestheader-allowed-names=front-proxy-client",
                        "--requestheader-username-headers=X-Remote-User",
                        "--requestheader-group-headers=X-Remote-Group",
                        "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                        "--proxy-client-cert-file=" + credentials.certificate("front-proxy-client"),
                        "--proxy-client-key-file=" + credentials.key("front-proxy-client"),
                        "--kubelet-client-certificate=" + credentials.certificate("apiserver-kubelet-client"),
                        "--kubelet-client-key=" + credentials.key("apiserver-kubelet-client"),
                        "--kubelet-preferred-address-types=InternalIP,Hostname",
                        "--enable-admission-plugins=NodeRestriction",
                        "--allow-privileged=true",
                        "--profiling=false",
                        "--max-requests-inflight=1000",
                        "--max-mutating-requests-inflight=500",
                        "--v=1"),
                https("https://127.0.0.1:%d/readyz".formatted(port)));
    }

    private void startControllerManager() {
        int port = ports.get("kube-controller-manager");
        String kubeconfig = path("controller-manager.kubeconfig").toString();
        run(
                "kube-controller-manager",
                List.of(
                        bin(options.binaries().kubeControllerManager()),
                        "--kubeconfig=" + kubeconfig,
                        "--authentication-kubeconfig=" + kubeconfig,
                        "--authorization-kubeconfig=" + kubeconfig,
                        "--bind-address=127.0.0.1",
                        "--secure-port=" + port,
                        "--tls-cert-file=" + credentials.certificate("controller-manager"),
                        "--tls-private-key-file=" + credentials.key("controller-manager"),
                        "--leader-elect=false",
                        "--use-service-account-credentials=true",
                        "--service-account-private-key-file="
                                + credentials.dir().resolve("sa.key"),
                        "--root-ca-file=" + credentials.certificate("ca"),
                        "--v=1"),
                https("https://127.0.0.1:%d/healthz".formatted(port)));
    }

    private void startScheduler(Path config) {
        schedulerConfigInUse = config;
        int port = ports.get("kube-scheduler");
        String kubeconfig = path("scheduler.kubeconfig").toString();
        Path effective = files.schedulerConfig(config, kubeconfig);
        run(
                "kube-scheduler",
                List.of(
                        bin(options.binaries().kubeScheduler()),
                        "--config=" + effective,
                        "--authentication-kubeconfig=" + kubeconfig,
                        "--authorization-kubeconfig=" + kubeconfig,
                        "--bind-address=127.0.0.1",
                        "--secure-port=" + port,
                        "--tls-cert-file=" + credentials.certificate("scheduler"),
                        "--tls-private-key-file=" + credentials.key("scheduler"),
                        // One line per scheduling cycle ("Attempting to schedule pod"): the order pods were decided in,
                        // which
                        // the cluster replay reads because binds land out of it.
                        "--v=1",
                        "--vmodule=schedule_one=3"),
                https("https://127.0.0.1:%d/readyz".formatted(port)));
    }

    private void startKwok() {
        int port = ports.get("kwok");
        run(
                "kwok",
                List.of(
                        bin(options.binaries().kwok()),
                        "--kubeconfig=" + kubeconfig(),
                        "--config=" + options.binaries().kwokStages(),
                        "--manage-all-nodes=false",
                        "--manage-nodes-with-annotation-selector=" + KWOK_NODE_ANNOTATION + "=fake",
                        "--server-address=127.0.0.1:" + port,
                        "--node-ip=127.0.0.1"),
                () -> get(HttpClient.newHttpClient(), "http://127.0.0.1:%d/healthz".formatted(port))
                        .contains("ok"));
    }

    private void run(String name, List<String> command, Callable<Boolean> ready) {
        ManagedProcess p = ManagedProcess.start(
                name, command, options.workDir().resolve("logs").resolve(name + ".log"));
        processes.put(name, p);
        p.awaitReady(ready, options.readyTimeout());
    }

    private Callable<Boolean> https(String url) {
        return () -> get(probe, url).strip().equals("ok");
    }

    private static String get(HttpClient client, String url) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(3))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 ? r.body() : "";
    }

    private Path path(String name) {
        return options.workDir().resolve(name);
    }

    private static String bin(Path p) {
        return p.toString();
    }
}
