package io.elasticgpu.node.isolation;

import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.discovery.ComputeMode;
import io.elasticgpu.node.discovery.GpuBackend;
import io.elasticgpu.node.discovery.Hardware;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Isolation by MPS as the agent uses it: a daemon per share ({@link #share}), and one loop that every
 * {@code checkEvery} starts dead daemons again and enforces process counts, and every {@link #RETAIN_EVERY} checks
 * ends the daemons of shares nobody holds. Whole cards never go through MPS. Thread-safe.
 */
public final class MpsIsolation implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MpsIsolation.class);
    /** Checks between two rounds of ending unheld shares. */
    static final int RETAIN_EVERY = 10;
    /**
     * A share this young is held even if kubelet has not recorded it yet (kubelet records a container after Allocate).
     * */
    public static final Duration GRACE = Duration.ofMinutes(2);

    /** What the agent tells the cluster (events and metrics) about isolation. */
    public interface Notices {
        /** A share's daemon was started again, or a process of it ended. */
        void warn(MpsShare share, String reason, String message);

        /** A process used a card held through MPS outside MPS (a pod's is ended; the host's only reported). */
        default void bypassed(MpsWatchdog.Bypass bypass) {}

        Notices NONE = (share, reason, message) -> {};
    }

    private final MpsDaemons daemons;
    private final MpsWatchdog watchdog;
    private final Notices notices;
    private final InstantSource clock;
    private final ScheduledExecutorService loop;
    private final Duration timeout;
    private final long contextReserveMib;
    private volatile Supplier<Predicate<MpsDaemons.Daemon>> held = () -> d -> true;
    private long rounds;

    private MpsIsolation(
            IsolationConfig config, Hardware hardware, GpuBackend gpus, InstantSource clock, Notices notices) {
        this.notices = notices;
        this.clock = clock;
        this.timeout = config.timeout();
        this.contextReserveMib = config.contextReserveMib();
        MpsControl control = new MpsControl(
                MpsControl.check(config.program(), "--mps-control"),
                config.hostNamespaces(),
                config.cgroupRoot(),
                config.timeout());
        for (var g : hardware.gpus()) {
            if (g.migEnabled()) {
                continue; // NVML answers a MIG card's compute mode only per MIG device; whole-card MPS does not apply
            }
            ComputeMode mode = gpus.computeMode(g.index());
            if (mode != ComputeMode.DEFAULT) {
                throw new IllegalArgumentException(
                        ("card %d (%s) is in compute mode %s; isolation by MPS runs one daemon per"
                                        + " share, so several MPS servers use a card at once, which only compute "
                                        + "mode DEFAULT allows;"
                                        + " set it with nvidia-smi -i %d -c DEFAULT")
                                .formatted(g.index(), g.uuid(), mode, g.index()));
            }
        }
        this.daemons = MpsDaemons.open(
                control,
                config.root(),
                clock,
                (share, why) -> notices.warn(share, "GpuShareDaemonRestarted", "MPS daemon started again: " + why));
        this.watchdog = new MpsWatchdog(daemons, gpus, hardware);
        this.loop = Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name("egpu-isolation").factory());
        long period = config.checkEvery().toMillis();
        loop.scheduleWithFixedDelay(this::round, period, period, TimeUnit.MILLISECONDS);
        LOG.info(
                "isolation by MPS: root {}, {} shares adopted, checked every {}",
                config.root(),
                daemons.daemons().size(),
                config.checkEvery());
    }

    /**
     * @throws IllegalArgumentException when the control program is missing or a card's compute mode forbids several
     *                                  MPS servers (the message names the flag or the command that fixes it)
     */
    public static MpsIsolation start(
            IsolationConfig config, Hardware hardware, GpuBackend gpus, InstantSource clock, Notices notices) {
        return new MpsIsolation(config, hardware, gpus, clock, notices);
    }

    /**
     * Which shares are still held: called at every round that ends unheld shares, it returns the test for that
     * round (so that it can read kubelet's records once). Shares younger than {@link #GRACE} are held regardless.
     */
    public void heldBy(Supplier<Predicate<MpsShare>> test) {
        this.held = () -> {
            Predicate<MpsShare> now = test.get();
            return d -> clock.instant().isBefore(d.started().plus(GRACE)) || now.test(d.share());
        };
    }

    /**
     * The share's daemon, started with its limits if it is not running; empty for a whole card, which MPS never
     * holds.
     *
     * @param key       {@link #deviceKey} or {@link #claimKey}
     * @param holder    who holds it, for logs and events
     * @param held      what says it is still held after an agent restart ({@link MpsShare#held})
     * @param shares    one per card, in the order the container sees the cards
     * @param processes how many CUDA processes share it
     * @throws IllegalArgumentException when MPS cannot hold the share (the message says what to change)
     * @throws MpsException             when the daemon cannot be started
     */
    public Optional<MpsDirs> share(String key, String holder, String held, List<Share> shares, int processes) {
        if (shares.stream().anyMatch(s -> s.milli() >= 1000)) {
            return Optional.empty();
        }
        MpsShare share = new MpsShare(
                key,
                shares.stream().map(Share::uuid).toList(),
                MpsLimits.of(shares, processes, contextReserveMib),
                holder,
                held);
        return Optional.of(daemons.ensure(share));
    }

    /** Ends the daemons of a claim's requests (all keys that {@link #claimKey} made for {@code uid}). */
    public void releaseClaim(String uid) {
        String prefix = "dra-" + uid + "-";
        daemons.daemons().stream()
                .filter(d -> d.share().key().startsWith(prefix))
                .forEach(d -> daemons.release(d.share().key()));
    }

    /** The key of a device-plugin grant: one per container's handout, whatever resources it was asked for. */
    public static String deviceKey(String handout) {
        return "dp-" + hash(handout);
    }

    /** The key of one request of a prepared claim. */
    public static String claimKey(String uid, String request) {
        return "dra-" + uid.toLowerCase(java.util.Locale.ROOT) + "-" + hash(request);
    }

    private static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One round of the loop; public for tests and the GPU check, which drive it without waiting. */
    public synchronized void round() {
        try {
            daemons.check();
            for (MpsWatchdog.Ended e : watchdog.enforce()) {
                notices.warn(
                        e.share(),
                        "GpuShareProcessEnded",
                        ("a CUDA process (pid %d) beyond the %d the share allows"
                                        + " was ended by %s; set annotation %s to the number of CUDA processes the "
                                        + "pod runs")
                                .formatted(
                                        e.pid(),
                                        e.share().limits().processes(),
                                        e.how(),
                                        MpsLimits.PROCESSES_ANNOTATION));
            }
            for (MpsWatchdog.Bypass b : watchdog.bypasses()) {
                notices.bypassed(b);
            }
            if (++rounds % RETAIN_EVERY == 0) {
                daemons.retain(held.get());
            }
        } catch (RuntimeException e) {
            LOG.error("isolation round failed: {}", e.toString());
        }
    }

    /** Ends unheld shares now (the loop does it every {@link #RETAIN_EVERY} rounds). */
    public synchronized List<String> retainNow() {
        return daemons.retain(held.get());
    }

    public MpsDaemons daemons() {
        return daemons;
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
}
