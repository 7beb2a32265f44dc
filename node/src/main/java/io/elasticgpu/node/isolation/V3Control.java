package io.elasticgpu.node.isolation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The node's MPS v3 control daemon as the agent reaches it: which process it is (adopted from its record or found by
 * its environment, or started here in its directories), and the v3 command line it is asked by
 * ({@code nvidia-cuda-mps-control -p 3 <module> <verb> …} with the daemon's pipe directory), whose CSV lists are read
 * by their header ({@link MpsAnswers#rows}); with the names the agent gives its servers and namespaces. Each command
 * is one run of the control program (milliseconds, bounded by its timeout). Which process the daemon is may be read
 * from any thread; it changes under {@link MpsNamespaces}' lock.
 */
final class V3Control {

    /** The daemon's arguments: in the background, MPS v3's protocol, multi-user. */
    static final List<String> DAEMON_ARGS = List.of("-d", "-p", "3", "-m");
    /** Before every command: as NVIDIA's guide calls v3 (a running daemon's own protocol would decide anyway). */
    private static final List<String> PROTOCOL = List.of("-p", "3");

    static final String PINNED = "pinned-memory-limit";
    static final String THREADS = "active-thread-percentage";
    private static final List<String> SERVER_COLUMNS =
            List.of("name", "uid", "pid", "status", "pipe-directory", "allowed-devices", "context-ids");
    private static final List<String> NAMESPACE_COLUMNS =
            List.of("name", "server", "server-status", PINNED, THREADS, "client-priority", "pipe-directory");
    private static final List<String> CLIENT_COLUMNS = List.of("pid", "server", "device", "namespace", "cmd");

    /** What every namespace of the agent's is called: {@code s_} and the share's key. */
    static final String NAMESPACE_PREFIX = "s_";
    /** The agent's servers: {@code card_<index>}, {@code cards_<i>_<j>…}, or {@code cards_<hash>} for many. */
    private static final Pattern OUR_SERVER = Pattern.compile("card_[0-9]+|cards_[0-9a-f_]+");

    private final MpsControl control;
    private final MpsDirs dirs;
    private volatile DaemonProcess daemon = DaemonProcess.NONE;

    V3Control(MpsControl control, MpsDirs dirs) {
        this.control = control;
        this.dirs = dirs;
    }

    MpsDirs dirs() {
        return dirs;
    }

    /** The host's {@code /proc}, where the daemon and its clients are found. */
    Path proc() {
        return control.proc();
    }

    /** The daemon as last adopted or started ({@link DaemonProcess#NONE} before either). */
    DaemonProcess daemon() {
        return daemon;
    }

    /** Whether the daemon is running: the very process adopted or started. */
    boolean alive() {
        return control.alive(daemon);
    }

    /**
     * Adopts the recorded daemon if that very process still runs, else the daemon found serving the pipe directory
     * among the host's processes (by its environment, never by the pid file a pod can write), else none.
     */
    void adopt(Optional<DaemonProcess> recorded) {
        daemon = recorded.filter(control::alive)
                .or(() -> Files.isDirectory(dirs.pipe())
                        ? DaemonProcess.find(
                                control.proc(), control.program().getFileName().toString(), dirs.pipe())
                        : Optional.empty())
                .orElse(DaemonProcess.NONE);
    }

    /** Creates the daemon's directories and starts it there; returns which process it is. */
    DaemonProcess launch() {
        dirs.create();
        clearPipe();
        daemon = control.launch(dirs, List.of(), Map.of(), 0, DAEMON_ARGS);
        return daemon;
    }

    /**
     * A daemon killed mid-run leaves its pid file and control socket behind; a new daemon must not find them. The
     * servers' and namespaces' directories stay, so that the containers' mounts of them still lead to the namespaces
     * created again there.
     */
    private void clearPipe() {
        try (Stream<Path> files = Files.list(dirs.pipe())) {
            for (Path f : files.filter(p -> !Files.isDirectory(p)).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear %s: %s".formatted(dirs.pipe(), e.getMessage()), e);
        }
    }

    /** One command; returns what it printed. */
    String call(String... arguments) {
        List<String> args = new ArrayList<>(PROTOCOL);
        args.addAll(List.of(arguments));
        return control.call(dirs.pipe(), args);
    }

    // ------------------------------------------------------------------------------------------------ servers

    /** The daemon's servers by name ({@code server list}). */
    Map<String, Map<String, String>> servers() {
        return MpsAnswers.byName(MpsAnswers.rows(call("server", "list", "--format=csv"), SERVER_COLUMNS));
    }

    void createServer(String server, List<String> uuids) {
        call("server", "create", server, "--uid=0", "--allowed-devices=" + String.join(",", uuids));
    }

    /** Deletes the server, ending its clients. */
    void deleteServer(String server) {
        call("server", "delete", server, "--force");
    }

    /** The pid of the server's process; 0 when it names none. */
    long serverPid(String server) {
        return MpsAnswers.pids(call("server", "get", server, "pid")).stream()
                .findFirst()
                .orElse(0L);
    }

    // ------------------------------------------------------------------------------------------------ namespaces

    /** The server's namespaces by name ({@code namespace list}). */
    Map<String, Map<String, String>> namespaces(String server) {
        return MpsAnswers.byName(
                MpsAnswers.rows(call("namespace", "list", "--server=" + server, "--format=csv"), NAMESPACE_COLUMNS));
    }

    /** Every namespace of every server ({@code namespace list}), each with its name and its server's. */
    List<Map<String, String>> namespaces() {
        return MpsAnswers.rows(call("namespace", "list", "--format=csv"), NAMESPACE_COLUMNS);
    }

    void createNamespace(String namespace, String server) {
        call("namespace", "create", namespace, "--server=" + server);
    }

    /** Deletes the namespace, ending its clients. */
    void deleteNamespace(String namespace, String server) {
        call("namespace", "delete", namespace, "--server=" + server, "--force");
    }

    /** One field of the namespace, with NVIDIA's documented getter. */
    String get(String namespace, String server, String field) {
        return call("namespace", "get", namespace, server, field);
    }

    void setLimits(String namespace, String server, long pinnedMib, int threadPercent) {
        call(
                "namespace",
                "set",
                namespace,
                "--server=" + server,
                "--pinned-memory-limit=" + pinnedMib + "M",
                "--active-thread-percentage=" + threadPercent);
    }

    // ------------------------------------------------------------------------------------------------ clients

    /** The pids of the namespace's clients ({@code client list} of its server). */
    List<Long> clients(String server, String namespace) {
        List<Long> out = new ArrayList<>();
        for (Map<String, String> row :
                MpsAnswers.rows(call("client", "list", "--server=" + server, "--format=csv"), CLIENT_COLUMNS)) {
            if (namespace.equals(row.get("namespace"))) {
                OptionalLong pid = MpsAnswers.number(row.get("pid"));
                if (pid.isPresent() && !out.contains(pid.getAsLong())) {
                    out.add(pid.getAsLong());
                }
            }
        }
        return out;
    }

    /** Ends the GPU work of one client process. */
    void terminate(long client) {
        call("client", "terminate", Long.toString(client));
    }

    // ------------------------------------------------------------------------------------------------ names

    /** The server of cards by index: {@code card_<index>}, or {@code cards_<i>_<j>…} for several. */
    static String serverName(List<Integer> indexes) {
        List<Integer> sorted = indexes.stream().distinct().sorted().toList();
        String name = sorted.size() == 1
                ? "card_" + sorted.getFirst()
                : "cards_"
                        + String.join("_", sorted.stream().map(String::valueOf).toList());
        return name.length() <= 64 ? name : "cards_" + Records.hash(name);
    }

    /**
     * The share's namespace: {@code s_} and its key with {@code _} for {@code -} (MPS names are lower-case letters,
     * digits and {@code _}, at most 64), a long key cut and ended with a hash of it.
     */
    static String namespaceName(String key) {
        String name = NAMESPACE_PREFIX + key.replace('-', '_');
        return name.length() <= 64 ? name : name.substring(0, 47) + "_" + Records.hash(key);
    }

    /** Whether the server is named as the agent names its servers ({@link #serverName}). */
    static boolean ourServer(String name) {
        return OUR_SERVER.matcher(name).matches();
    }
}
