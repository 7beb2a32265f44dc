package io.elasticgpu.node.isolation;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.Hardware;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Isolation by MPS as the agent uses it: the node's shares held by the MPS servers of one layout
 * ({@link ShareServers}, picked at start: {@link IsolationConfig.Layout}), before kubelet is answered
 * ({@link #share}), and one loop that every {@code checkEvery} starts again what died, reads every limit back and puts
 * back any that changed, enforces process counts and memory, ends processes that went around MPS, and every
 * {@link #RETAIN_EVERY} rounds stops holding shares nobody holds. Whole cards never go through MPS. Thread-safe.
 */
public final class MpsIsolation implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MpsIsolation.class);
    /** Checks between two rounds of ending unheld shares. */
    static final int RETAIN_EVERY = 10;
    /**
     * A share this young is held even if kubelet has not recorded it yet (kubelet records a container after Allocate).
     */
    public static final Duration GRACE = Duration.ofMinutes(2);

    /** What the agent tells the cluster (events and metrics) about isolation. */
    public interface Notices {
        /**
         * A share's daemon was started again, a process of it ended, or a limit of it changed and was set again.
         * {@code reason} is the event's reason.
         */
        void warn(MpsShare share, String reason, String message);

        /** A process used a card held through MPS outside MPS (a pod's is ended; the host's only reported). */
        default void bypassed(MpsWatchdog.Bypass bypass) {}

        Notices NONE = (share, reason, message) -> {};
    }

    /**
     * What the node runs, for its status and metrics.
     *
     * @param layout      the layout the agent runs (never {@code AUTO})
     * @param memory      what holds a share's memory: {@code mps} (MPS's pinned limit per process, in user space),
     *                    {@code mps+dmem} (also the pod's cgroup, in the kernel), or {@code environment} (the per-card
     *                    layout: the container's own variables)
     * @param bypass      what stops a process from going around MPS: {@code driver} (every card in compute mode
     *                    EXCLUSIVE_PROCESS with one MPS server: the driver refuses any other process), or {@code agent}
     *                    (the agent kills it within a round)
     * @param why         why this layout, in a sentence (what {@code auto} found)
     */
    public record Status(IsolationConfig.Layout layout, String memory, String bypass, String why) {

        /** The node's {@code elasticgpu.io/gpu.isolation} label: {@code mps-} and the layout. */
        public String label() {
            return "mps-" + layout.flag();
        }

        /** The node's {@code elasticgpu.io/isolation} annotation. */
        public String json() {
            java.util.Map<String, String> fields = new java.util.LinkedHashMap<>();
            fields.put("layout", layout.flag());
            fields.put("memory", memory);
            fields.put("bypass", bypass);
            fields.put("why", why);
            try {
                return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(fields);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final ShareServers servers;
    private final MpsWatchdog watchdog;
    private final Notices notices;
    private final InstantSource clock;
    private final ScheduledExecutorService loop;
    private final Duration timeout;
    private final long contextReserveMib;
    private final long shmMib;
    private final Status status;
    private final Map<String, Instant> since = new ConcurrentHashMap<>(); // share key -> when this agent first held it
    private volatile Supplier<Predicate<MpsShare>> held = () -> s -> true;
    private long rounds;

    private MpsIsolation(
            IsolationConfig config, Hardware hardware, GpuBackend gpus, InstantSource clock, Notices notices) {
        this.notices = notices;
        this.clock = clock;
        this.timeout = config.timeout();
        this.contextReserveMib = config.contextReserveMib();
        this.shmMib = config.shmMib();
        MpsControl control = new MpsControl(
                MpsControl.check(config.program(), "--mps-control"),
                config.hostNamespaces(),
                config.cgroupRoot(),
                config.timeout());
        Layouts.Choice choice = Layouts.choose(config, control, hardware);
        boolean exclusive = Layouts.checkComputeModes(choice.layout(), hardware, gpus);
        MpsDaemons.Listener restarted =
                (share, why) -> tell(share, "GpuShareDaemonRestarted", "MPS daemon started" + " again: " + why);
        this.servers = switch (choice.layout()) {
            case PER_SHARE -> new ShareDaemons(MpsDaemons.open(control, config.root(), clock, restarted));
            case PER_CARD -> new CardDaemons(MpsDaemons.open(control, config.root(), clock, restarted), hardware);
            case V3 ->
                MpsNamespaces.open(
                        control,
                        config.root(),
                        hardware,
                        choice.memory(),
                        config.contextReserveMib(),
                        clock,
                        restarted);
            case AUTO -> throw new IllegalStateException("a layout is chosen before the servers are opened");
        };
        this.status = new Status(
                choice.layout(),
                switch (choice.layout()) {
                    case PER_CARD -> "environment";
                    case V3 -> choice.memory().isPresent() ? "mps+dmem" : "mps";
                    default -> "mps";
                },
                exclusive && choice.layout() != IsolationConfig.Layout.PER_SHARE ? "driver" : "agent",
                choice.why());
        servers.shares().forEach(s -> since.put(s.key(), clock.instant()));
        this.watchdog = new MpsWatchdog(servers, gpus, hardware, config.contextReserveMib());
        this.loop = Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name("egpu-isolation").factory());
        long period = config.checkEvery().toMillis();
        loop.scheduleWithFixedDelay(this::round, period, period, TimeUnit.MILLISECONDS);
        LOG.info(
                "isolation by MPS: layout {} ({}), memory held by {}, bypass stopped by the {}; root {}, {} shares"
                        + " adopted, checked every {}",
                status.layout().flag(),
                status.why(),
                status.memory(),
                status.bypass(),
                config.root(),
                servers.shares().size(),
                config.checkEvery());
    }

    /**
     * @throws IllegalArgumentException when the control program is missing, the layout asked for needs what the node
     *                                  lacks, or a card's compute mode forbids the layout (the message names the flag
     *                                  or the command that fixes it)
     */
    public static MpsIsolation start(
            IsolationConfig config, Hardware hardware, GpuBackend gpus, InstantSource clock, Notices notices) {
        return new MpsIsolation(config, hardware, gpus, clock, notices);
    }

    /** What the node runs: its layout, what holds memory, what stops a bypass. */
    public Status status() {
        return status;
    }

    /**
     * Which shares are still held: called at every round that ends unheld shares, it returns the test for that
     * round (so that it can read kubelet's records once). Shares younger than {@link #GRACE} are held regardless.
     */
    public void heldBy(Supplier<Predicate<MpsShare>> test) {
        this.held = () -> {
            Predicate<MpsShare> now = test.get();
            Instant cutoff = clock.instant().minus(GRACE);
            return s -> since.getOrDefault(s.key(), Instant.MIN).isAfter(cutoff) || now.test(s);
        };
    }

    /**
     * Holds the share, its server started with its limits if it is not running; empty for a whole card, which MPS
     * never holds.
     *
     * @param key       {@link #deviceKey} or {@link #claimKey}
     * @param holder    who holds it, for logs and events
     * @param held      what says it is still held after an agent restart ({@link MpsShare#held})
     * @param shares    one per card, in the order the container sees the cards
     * @param processes how many CUDA processes share it
     * @param ownShm    whether its pod brings a {@code /dev/shm} of its own (then it gets none of the share's)
     * @throws IllegalArgumentException when MPS cannot hold the share (the message says what to change)
     * @throws MpsException             when its server cannot be started
     */
    public Optional<MpsAccess> share(
            String key, String holder, String held, List<Share> shares, int processes, boolean ownShm) {
        if (shares.stream().anyMatch(s -> s.milli() >= 1000)) {
            return Optional.empty();
        }
        MpsShare share = new MpsShare(
                key,
                shares.stream().map(Share::uuid).toList(),
                MpsLimits.of(shares, processes, contextReserveMib),
                holder,
                held,
                ownShm ? 0 : shmMib);
        MpsAccess access = servers.hold(share);
        since.putIfAbsent(key, clock.instant());
        return Optional.of(access);
    }

    /** Stops holding a claim's requests (all keys that {@link #claimKey} made for {@code uid}). */
    public void releaseClaim(String uid) {
        String prefix = "dra-" + uid.toLowerCase(java.util.Locale.ROOT) + "-";
        servers.shares().stream().filter(s -> s.key().startsWith(prefix)).forEach(s -> {
            servers.release(s.key());
            since.remove(s.key());
        });
    }

    /** The key of a device-plugin grant: one per container's answer, whatever resources it was asked for. */
    public static String deviceKey(String answer) {
        return "dp-" + Records.hash(answer);
    }

    /** The key of one request of a prepared claim. */
    public static String claimKey(String uid, String request) {
        return "dra-" + uid.toLowerCase(java.util.Locale.ROOT) + "-" + Records.hash(request);
    }

    /**
     * One round of the loop; public for tests and the GPU check, which drive it without waiting. Each of its parts runs
     * even when another failed (NVML unreadable for a moment must not stop the limits' audit).
     */
    public synchronized void round() {
        part("restart", servers::check);
        part("process check", () -> watchdog.enforce().forEach(this::ended));
        part("limits audit", () -> {
            for (LimitDrift d : servers.audit(watchdog.servers())) {
                tell(
                        d.share(),
                        "GpuShareLimitRestored",
                        "an MPS limit was changed from outside the agent: %s".formatted(d.describe()));
                watchdog.endStartedDuring(d).forEach(this::ended);
            }
        });
        part("bypass notices", () -> watchdog.bypasses().forEach(notices::bypassed));
        if (++rounds % RETAIN_EVERY == 0) {
            part("release", this::retainNow);
        }
    }

    private static void part(String name, Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            LOG.error("isolation round: the {} failed: {}", name, e.toString());
        }
    }

    private void ended(MpsWatchdog.Ended e) {
        String message = switch (e.why()) {
            case COUNT ->
                ("a CUDA process (pid %d) beyond the %d the share allows was ended by %s; set annotation"
                                + " %s to the number of CUDA processes the pod runs")
                        .formatted(e.pid(), e.share().limits().processes(), e.how(), MpsLimits.PROCESSES_ANNOTATION);
            case MEMORY -> "a CUDA process (pid %d) was ended by %s: %s".formatted(e.pid(), e.how(), e.detail());
            case DRIFT ->
                ("a CUDA process (pid %d) that started while a limit of its share was changed was ended by" + " %s: %s")
                        .formatted(e.pid(), e.how(), e.detail());
        };
        tell(e.share(), e.why() == MpsWatchdog.Why.MEMORY ? "GpuShareExceeded" : "GpuShareProcessEnded", message);
    }

    /**
     * Tells the holder of a share, or, for a card's daemon in the per-card layout (which no one holds), the holders of
     * every share on that card.
     */
    private void tell(MpsShare unit, String reason, String message) {
        if (!unit.holder().isEmpty()) {
            notices.warn(unit, reason, message);
            return;
        }
        servers.shares().stream()
                .filter(s -> s.cards().stream().anyMatch(unit.cards()::contains))
                .forEach(s -> notices.warn(s, reason, message));
    }

    /** Stops holding unheld shares now (the loop does it every {@link #RETAIN_EVERY} rounds). */
    public synchronized List<String> retainNow() {
        List<String> ended = servers.retain(held.get());
        ended.forEach(since::remove);
        return ended;
    }

    /** The MPS servers that hold the node's shares. */
    public ShareServers servers() {
        return servers;
    }

    /** The share each MPS server and client pid belonged to at the last round. */
    public Map<Long, MpsWatchdog.ShareProcess> owners() {
        return watchdog.owners();
    }

    /**
     * Stops the loop, letting a round under way finish (a daemon half started would have no limits set by command);
     * the daemons keep running for the processes they serve, and the next agent adopts them.
     */
    @Override
    public void close() {
        loop.shutdown();
        try {
            if (!loop.awaitTermination(timeout.toMillis() * 4, TimeUnit.MILLISECONDS)) {
                loop.shutdownNow();
            }
        } catch (InterruptedException e) {
            loop.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Where the cgroup v2 hierarchy is, as the agent sees it. */
    static Path cgroupfs(IsolationConfig config) {
        return Path.of(config.cgroupRoot().isEmpty() ? "/sys/fs/cgroup" : config.cgroupRoot());
    }
}
