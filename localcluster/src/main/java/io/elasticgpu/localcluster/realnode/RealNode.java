package io.elasticgpu.localcluster.realnode;

import static java.util.Objects.requireNonNull;

import io.elasticgpu.http.tls.CertificateAuthority.Usage;
import io.elasticgpu.http.tls.IssuedCertificate;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.elasticgpu.localcluster.controlplane.ManagedProcess;
import io.elasticgpu.localcluster.controlplane.Poll;
import io.elasticgpu.localcluster.controlplane.Ports;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real node joined to a {@link ControlPlane}: containerd 2.x (CRI, CDI, runc, a CNI bridge) and kubelet, with the
 * sandbox and workload images imported without a registry. {@link #start} returns when kubelet has registered the
 * node and it is Ready; {@link #close} removes its containers, stops both, and undoes what they did to the machine
 * (mounts, the pods' bridge, cgroups, the state directory) and deletes the Node. One per machine at a time (kubelet's
 * device-plugin directory is fixed), held by a lock file. The node is tainted {@value NodeConfigFiles#TAINT_KEY}, so
 * only pods that tolerate it run there.
 * It is over 400 lines because starting and closing are mirror images kept side by side, so that every step undone can
 * be checked against the step done.
 */
public final class RealNode implements AutoCloseable {

    public static final String TAINT_KEY = NodeConfigFiles.TAINT_KEY;
    private static final Path LOCK = Path.of("/run/elasticgpu-real-node.lock");
    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final Duration COMMAND = Duration.ofSeconds(60);

    /**
     * @param name         the Node's name
     * @param readyTimeout how long containerd and kubelet each may take to become ready
     */
    public record Options(String name, NodePrograms programs, NodeLayout layout, Duration readyTimeout) {
        public Options {
            requireNonNull(name, "name");
            requireNonNull(programs, "programs");
            requireNonNull(layout, "layout");
            requireNonNull(readyTimeout, "readyTimeout");
        }

        /** Node {@code real-node}, its files under the control plane's directory, 2 minutes to be ready. */
        public static Options of(ControlPlane controlPlane, NodePrograms programs) {
            return new Options(
                    "real-node",
                    programs,
                    NodeLayout.under(controlPlane.workDir().resolve("real-node")),
                    Duration.ofMinutes(2));
        }
    }

    private final ControlPlane controlPlane;
    private final Options options;
    private final FileChannel lockFile;
    private final FileLock lock;
    /** Whether {@code /var/lib/kubelet} was there before this node: if not, it goes with the node. */
    private final boolean kubeletDirWasThere = Files.exists(NodeLayout.DEVICE_PLUGINS.getParent());

    private final CardDeviceNodes deviceNodes = new CardDeviceNodes();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread shutdownHook = new Thread(this::stopAll, "real-node-shutdown");
    private volatile ManagedProcess containerd;
    private volatile ManagedProcess kubelet;
    private String nodeIp;
    private int kubeletPort;
    private int healthzPort;
    private volatile boolean closed;

    private RealNode(ControlPlane controlPlane, Options options, FileChannel lockFile, FileLock lock) {
        this.controlPlane = controlPlane;
        this.options = options;
        this.lockFile = lockFile;
        this.lock = lock;
    }

    /**
     * Starts containerd and kubelet and waits until the node is Ready.
     *
     * @throws IllegalStateException when the machine cannot run a real node (the sentence of {@link HostCheck}),
     *                               another real node or a kubelet runs here, or a program fails to start (with the
     *                               end of its log); whatever was started is stopped and undone again
     */
    public static RealNode start(ControlPlane controlPlane, Options options) {
        if (HostCheck.check(options.programs()) instanceof HostCheck.Verdict.CannotRun(String reason)) {
            throw new IllegalStateException(reason);
        }
        FileChannel channel;
        FileLock lock;
        try {
            channel = FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lock = channel.tryLock();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the real node's lock " + LOCK + ": " + e.getMessage(), e);
        }
        if (lock == null) {
            throw new IllegalStateException(
                    "another real node runs on this machine (it holds " + LOCK + "); stop it first");
        }
        RealNode node = new RealNode(controlPlane, options, channel, lock);
        Runtime.getRuntime().addShutdownHook(node.shutdownHook);
        try {
            node.refuseAForeignKubelet();
            // A run that was killed may have left its state: undo it before starting over.
            node.undoHostState();
            node.startContainerd();
            node.importImages();
            node.launchKubelet();
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    public String name() {
        return options.name();
    }

    public NodeLayout layout() {
        return options.layout();
    }

    public NodePrograms programs() {
        return options.programs();
    }

    /**
     * The workload image, imported into the node's containerd: pods must use it with {@code imagePullPolicy: Never}. */
    public String busyboxImage() {
        return options.programs().busyboxName();
    }

    public Path kubeletLog() {
        return controlPlane.workDir().resolve("logs").resolve("kubelet.log");
    }

    public long kubeletPid() {
        return kubelet.pid();
    }

    /** Makes the device nodes of simulated cards {@code 0..cards-1}, which CDI specs of DRA claims name. */
    public void ensureCardDeviceNodes(int cards) {
        deviceNodes.ensure(cards);
    }

    /**
     * Stops kubelet (SIGTERM) and starts it again with the same configuration, as a node's service manager would;
     * containerd and the containers keep running. Returns when the node is Ready again.
     */
    public void restartKubelet() {
        stopKubelet();
        startKubelet();
    }

    /**
     * Stops kubelet (SIGTERM) and leaves it stopped, as a node's service manager would during an upgrade; containerd
     * and the containers keep running, and the Node stays Ready until its lease runs out. {@link #startKubelet}
     * starts it again.
     */
    public synchronized void stopKubelet() {
        ManagedProcess k = kubelet;
        if (k == null) {
            throw new IllegalStateException("kubelet is not running on " + name());
        }
        kubelet = null;
        k.stop(GRACE);
    }

    /** Starts kubelet with the node's configuration and returns when the node is Ready; refuses when one runs. */
    public void startKubelet() {
        if (kubelet != null) {
            throw new IllegalStateException("kubelet already runs on " + name() + " (pid " + kubelet.pid() + ")");
        }
        launchKubelet();
    }

    private void refuseAForeignKubelet() {
        Path socket = NodeLayout.DEVICE_PLUGINS.resolve("kubelet.sock");
        if (!Files.exists(socket)) {
            return;
        }
        try (var channel = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(socket))) {
            throw new IllegalStateException("a kubelet already runs on this machine (it answers on " + socket
                    + "); a real node for tests cannot run beside it");
        } catch (IOException stale) {
            // nobody listens: a socket left by an earlier run
        }
    }

    private void startContainerd() {
        Path config = NodeConfigFiles.containerd(layout(), programs());
        ManagedProcess p = ManagedProcess.start(
                "containerd",
                List.of(programs().containerd().toString(), "--config", config.toString(), "--log-level", "warn"),
                log("containerd"));
        containerd = p;
        p.awaitReady(() -> ctr("version").succeeded(), options.readyTimeout());
    }

    private void importImages() {
        for (Path image : List.of(programs().pauseImage(), programs().busyboxImage())) {
            ctr("images", "import", image.toString()).orThrow();
        }
    }

    private void launchKubelet() {
        if (nodeIp == null) {
            nodeIp = NodeAddress.primaryIpv4();
            kubeletPort = Ports.free();
            healthzPort = Ports.free();
            NodeConfigFiles.cni(layout());
            CgroupRoot.create();
            writeCredentials();
            NodeConfigFiles.kubelet(
                    layout(),
                    nodeIp,
                    kubeletPort,
                    healthzPort,
                    controlPlane.credentials().certificate("ca"),
                    file("node.crt"),
                    file("node.key"));
        }
        ManagedProcess p = ManagedProcess.start(
                "kubelet",
                List.of(
                        programs().kubelet().toString(),
                        "--config=" + file("kubelet.yaml"),
                        "--kubeconfig=" + file("kubelet.kubeconfig"),
                        "--root-dir=" + layout().kubeletRoot(),
                        "--hostname-override=" + name(),
                        "--node-ip=" + nodeIp,
                        "--v=2"),
                log("kubelet"));
        kubelet = p;
        try (KubernetesClient client = controlPlane.newClient()) {
            p.awaitReady(
                    () -> healthy() && ready(client.nodes().withName(name()).get()), options.readyTimeout());
        }
    }

    private boolean healthy() throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthzPort + "/healthz"))
                        .timeout(Duration.ofSeconds(2))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 && r.body().strip().equals("ok");
    }

    private static boolean ready(Node node) {
        return node != null
                && node.getStatus() != null
                && node.getStatus().getConditions().stream()
                        .anyMatch(c ->
                                c.getType().equals("Ready") && c.getStatus().equals("True"));
    }

    /** The node's client and serving certificate (system:node:NAME in group system:nodes) and its kubeconfig. */
    private void writeCredentials() {
        IssuedCertificate cert = controlPlane
                .credentials()
                .authority()
                .issue(
                        "system:node:" + name(),
                        "system:nodes",
                        List.of(Usage.CLIENT, Usage.SERVER),
                        List.of(nodeIp, "127.0.0.1", name()),
                        Duration.ofDays(30));
        write(file("node.crt"), cert.certificatePem());
        write(file("node.key"), cert.privateKeyPem());
        write(file("kubelet.kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: elastic-gpu-e2e
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: %s
                  user: {client-certificate: "%s", client-key: "%s"}
                contexts:
                - name: elastic-gpu-e2e
                  context: {cluster: elastic-gpu-e2e, user: %s}
                current-context: elastic-gpu-e2e
                """.formatted(
                        controlPlane.server(),
                        controlPlane.credentials().certificate("ca"),
                        "system:node:" + name(),
                        file("node.crt"),
                        file("node.key"),
                        "system:node:" + name()));
    }

    /** {@code ctr} against this node's containerd, in the namespace the CRI uses. */
    HostCommand.Result ctr(String... args) {
        List<String> command = new ArrayList<>(List.of(
                programs().ctr().toString(),
                "--address",
                layout().containerdSocket().toString(),
                "--namespace",
                "k8s.io"));
        command.addAll(List.of(args));
        return HostCommand.run(command, COMMAND);
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
        List<String> left = stopAll();
        if (!left.isEmpty()) {
            throw new IllegalStateException("the real node left behind: " + String.join("; ", left));
        }
    }

    /** Stops kubelet, the containers and containerd, undoes the node's host state, deletes the Node; what is left. */
    private synchronized List<String> stopAll() {
        List<String> left = new ArrayList<>();
        if (kubelet != null) {
            kubelet.stop(GRACE);
            kubelet = null;
        }
        if (containerd != null) {
            removeContainers();
            containerd.stop(GRACE);
            containerd = null;
        }
        left.addAll(undoHostState());
        left.addAll(deviceNodes.remove());
        try {
            if (kubeletDirWasThere) {
                Files.deleteIfExists(NodeLayout.DEVICE_PLUGINS.resolve("kubelet.sock"));
                Files.deleteIfExists(NodeLayout.DEVICE_PLUGINS.resolve("kubelet_internal_checkpoint"));
            } else {
                HostCleanup.deleteTree(NodeLayout.DEVICE_PLUGINS.getParent());
            }
        } catch (IOException | UncheckedIOException e) {
            left.add("kubelet's device-plugin directory: " + e.getMessage());
        }
        if (controlPlane.apiserverReady()) {
            try (KubernetesClient client = controlPlane.newClient()) {
                client.nodes().withName(name()).delete();
            }
        }
        try {
            lock.release();
            lockFile.close();
        } catch (IOException e) {
            left.add("the lock " + LOCK + ": " + e.getMessage());
        }
        return left;
    }

    /** Kills and deletes every task and container of the CRI's namespace, so their shims exit. */
    private void removeContainers() {
        HostCommand.Result tasks = ctr("tasks", "list", "--quiet");
        if (tasks.succeeded()) {
            tasks.output()
                    .lines()
                    .map(String::strip)
                    .filter(id -> !id.isEmpty())
                    .forEach(id -> ctr("tasks", "delete", "--force", id));
        }
        HostCommand.Result containers = ctr("containers", "list", "--quiet");
        if (containers.succeeded()) {
            containers
                    .output()
                    .lines()
                    .map(String::strip)
                    .filter(id -> !id.isEmpty())
                    .forEach(id -> ctr("containers", "delete", id));
        }
    }

    private List<String> undoHostState() {
        List<String> left = new ArrayList<>();
        HostCleanup.killShims(layout().containerdSocket());
        left.addAll(HostCleanup.unmountUnder(layout().state()));
        String bridge = HostCleanup.deleteLink(NodeConfigFiles.BRIDGE);
        if (bridge != null) {
            left.add(bridge);
        }
        CgroupRoot.killProcesses();
        // killed processes leave their cgroups a moment later
        Poll.until(() -> CgroupRoot.remove().isEmpty(), Duration.ofSeconds(10), Duration.ofMillis(200));
        left.addAll(CgroupRoot.remove().stream().map(c -> "cgroup " + c).toList());
        if (left.isEmpty()) {
            HostCleanup.deleteTree(layout().state());
        }
        return left;
    }

    private Path log(String name) {
        return controlPlane.workDir().resolve("logs").resolve(name + ".log");
    }

    private Path file(String name) {
        return layout().config().resolve(name);
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
