package io.elasticgpu.localcluster.controlplane;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A control plane whose components outlive the JVM that started them ({@code e2e/bin/cluster up}), as
 * {@link ControlPlane#detach} records it in {@code <dir>/cluster.properties}: each component's pid and port, the
 * apiserver's address and the admin kubeconfig. {@code status} and {@code down} read it back from there.
 *
 * @param dir        the cluster's work directory
 * @param pids       each component's process, by component name
 * @param ports      each component's loopback port, by component name
 * @param server     the apiserver's address
 * @param kubeconfig the admin kubeconfig
 */
public record DetachedCluster(
        Path dir, Map<String, Long> pids, Map<String, Integer> ports, String server, Path kubeconfig) {

    /** The record's file in the cluster's directory. */
    public static final String FILE = "cluster.properties";
    /** The order {@link #stop} stops components in: what depends on the apiserver first, etcd last. */
    private static final List<String> STOP_ORDER =
            List.of("kwok", "kube-scheduler", "kube-controller-manager", "kube-apiserver", "etcd");

    private static final Duration GRACE = Duration.ofSeconds(10);

    public DetachedCluster {
        requireNonNull(dir, "dir");
        pids = Map.copyOf(pids);
        ports = Map.copyOf(ports);
    }

    /** Whether a cluster is recorded in {@code dir} (running or not). */
    public static boolean recorded(Path dir) {
        return Files.exists(dir.resolve(FILE));
    }

    /**
     * @throws IllegalStateException when no cluster is recorded in {@code dir}, saying how to start one
     */
    public static DetachedCluster read(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            throw new IllegalStateException("no cluster in " + dir + "; start one with: e2e/bin/cluster up");
        }
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        Map<String, Long> pids = new TreeMap<>();
        Map<String, Integer> ports = new TreeMap<>();
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith("pid.")) {
                pids.put(key.substring(4), Long.parseLong(p.getProperty(key)));
            } else if (key.startsWith("port.")) {
                ports.put(key.substring(5), Integer.parseInt(p.getProperty(key)));
            }
        }
        String kubeconfig = p.getProperty("kubeconfig");
        return new DetachedCluster(
                dir, pids, ports, p.getProperty("server"), kubeconfig == null ? null : Path.of(kubeconfig));
    }

    /** Writes the record to {@code <dir>/}{@value #FILE}. */
    void write() {
        Properties state = new Properties();
        pids.forEach((name, pid) -> state.setProperty("pid." + name, Long.toString(pid)));
        ports.forEach((name, port) -> state.setProperty("port." + name, Integer.toString(port)));
        state.setProperty("kubeconfig", kubeconfig.toString());
        state.setProperty("server", server);
        try (var out = Files.newBufferedWriter(dir.resolve(FILE))) {
            state.store(out, "Elastic GPU e2e control plane, started by e2e/bin/cluster");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(FILE) + ": " + e.getMessage(), e);
        }
    }

    /** Whether the component's recorded process still runs. */
    public boolean running(String component) {
        Long pid = pids.get(component);
        return pid != null && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Whether every recorded component still runs. */
    public boolean alive() {
        return pids.keySet().stream().allMatch(this::running);
    }

    /**
     * Stops every recorded component (SIGTERM, then SIGKILL after a grace period), in {@link #STOP_ORDER}, and
     * deletes the record.
     *
     * @return the recorded ports still bound afterwards (empty when all are free)
     */
    public List<Integer> stop() {
        List<String> order = new ArrayList<>(STOP_ORDER);
        pids.keySet().stream().sorted().filter(name -> !order.contains(name)).forEach(order::add);
        for (String name : order) {
            Long pid = pids.get(name);
            if (pid != null) {
                ProcessHandle.of(pid).ifPresent(h -> ManagedProcess.stop(h, GRACE));
            }
        }
        try {
            Files.deleteIfExists(dir.resolve(FILE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir.resolve(FILE) + ": " + e.getMessage(), e);
        }
        return ports.values().stream()
                .sorted()
                .filter(port -> !Ports.awaitFree(port))
                .toList();
    }
}
