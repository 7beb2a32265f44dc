package io.elasticgpu.node.discovery;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPUs described by a YAML file ({@link SimulatedNodeFile}), for machines without GPUs: demos, the e2e and tests.
 * Events are what {@link #inject} and {@link #setAnswers} say, and what is appended to the events file next to the
 * YAML ({@code node.yaml.events}), so a person or a test can break a card of a running agent:
 * <pre>
 * xid 0 79      # card 0 reports Xid 79
 * ecc 3         # card 3 reports a double-bit ECC error
 * down 2        # card 2 stops answering queries; "up 2" brings it back
 * process 1 4242 2048 35   # with usage: true in the YAML, process 4242 holds 2048 MiB of card 1 and 35 % of its SMs
 * exit 4242     # process 4242 no longer holds any card
 * </pre>
 * The events file is looked at every {@value #FILE_POLL_MILLIS} ms while a thread waits for events. With
 * {@code usage: true} the backend {@linkplain #measuresUsage measures usage}: {@link #processes} and
 * {@link #utilization} report the processes those lines (or {@link #process}) describe, and the agent attributes
 * them to pods as it does NVML's (their cgroup, or the MPS share whose client or server they are). A process the SM
 * share is left out of has no utilization sample.
 */
public final class SimulatedBackend implements GpuBackend {

    static final long FILE_POLL_MILLIS = 100;
    private static final Duration LONGEST_WAIT = Duration.ofDays(1);
    private static final Logger LOG = LoggerFactory.getLogger(SimulatedBackend.class);

    private final Hardware hardware;
    private final Optional<SimulatedEventsFile> eventsFile;
    private final BlockingQueue<GpuEvent> events = new LinkedBlockingQueue<>();
    private final AtomicIntegerArray silent; // 1: the card does not answer
    private final boolean usage;
    private final Map<Held, Running> processes = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** A simulated process on one card. */
    private record Held(int card, int pid) {}

    /** What it holds there: memory, and its SM share (-1: no utilization sample). */
    private record Running(long memoryMib, int smPercent) {}

    private SimulatedBackend(Hardware hardware, Optional<SimulatedEventsFile> eventsFile, boolean usage) {
        this.hardware = requireNonNull(hardware, "hardware");
        this.eventsFile = eventsFile;
        this.silent = new AtomicIntegerArray(hardware.gpus().size());
        this.usage = usage;
    }

    /** Exactly {@code hardware}; events only through {@link #inject} and {@link #setAnswers}. */
    public static SimulatedBackend of(Hardware hardware) {
        return new SimulatedBackend(hardware, Optional.empty(), false);
    }

    /** The same, measuring usage: its processes are what {@link #process} and {@link #exit} say. */
    public static SimulatedBackend withUsage(Hardware hardware) {
        return new SimulatedBackend(hardware, Optional.empty(), true);
    }

    /** The node {@code yaml} describes, with uuids derived from {@code simulated}. */
    public static SimulatedBackend load(Path yaml) {
        return load(yaml, "simulated");
    }

    /**
     * The node {@code yaml} describes, watching {@code <yaml>.events}.
     *
     * @param seed what the cards' default uuids are derived from, e.g. the node's name
     * @throws DiscoveryException for a missing file or bad content, saying what to write instead
     */
    public static SimulatedBackend load(Path yaml, String seed) {
        SimulatedNodeFile.Described node = SimulatedNodeFile.described(yaml, requireNonNull(seed, "seed"));
        return new SimulatedBackend(
                node.hardware(),
                Optional.of(new SimulatedEventsFile(yaml.resolveSibling(yaml.getFileName() + ".events"))),
                node.usage());
    }

    @Override
    public String name() {
        return "simulated";
    }

    @Override
    public Hardware discover() {
        requireOpen();
        return hardware;
    }

    /** The driver reports {@code event}; a waiting thread gets it at once. */
    public void inject(GpuEvent event) {
        check(event.card());
        events.add(event);
    }

    /**
     * Process {@code pid} holds {@code memoryMib} of card {@code card} from now on (replacing what it held there),
     * using {@code smPercent} of its SMs (-1: NVML has no sample of it). Seen only with usage measured.
     */
    public void process(int card, int pid, long memoryMib, int smPercent) {
        check(card);
        if (memoryMib < 0 || smPercent < -1 || smPercent > 100) {
            throw new IllegalArgumentException(
                    "process %d on card %d: memory must be >= 0 MiB and SM 0..100 %% (or -1), were %d and %d"
                            .formatted(pid, card, memoryMib, smPercent));
        }
        processes.put(new Held(card, pid), new Running(memoryMib, smPercent));
    }

    /** Process {@code pid} holds no card any more. */
    public void exit(int pid) {
        processes.keySet().removeIf(h -> h.pid() == pid);
    }

    @Override
    public boolean measuresUsage() {
        return usage;
    }

    @Override
    public List<GpuProcess> processes(int card) {
        if (!answers(card)) {
            throw new DiscoveryException("simulated card %d does not answer".formatted(card));
        }
        return processes.entrySet().stream()
                .filter(e -> e.getKey().card() == card)
                .sorted(Comparator.comparingInt(e -> e.getKey().pid()))
                .map(e -> new GpuProcess(e.getKey().pid(), card, e.getValue().memoryMib()))
                .toList();
    }

    /** One sample per process with an SM share, each newer than {@code sinceMicros}. */
    @Override
    public List<ProcessUtilization> utilization(int card, long sinceMicros) {
        if (!answers(card)) {
            throw new DiscoveryException("simulated card %d does not answer".formatted(card));
        }
        long now = Math.max(sinceMicros + 1, System.currentTimeMillis() * 1000);
        return processes.entrySet().stream()
                .filter(e -> e.getKey().card() == card && e.getValue().smPercent() >= 0)
                .sorted(Comparator.comparingInt(e -> e.getKey().pid()))
                .map(e -> new ProcessUtilization(
                        e.getKey().pid(), card, e.getValue().smPercent(), 0, now))
                .toList();
    }

    /** Whether {@code card} answers queries from now on. */
    public void setAnswers(int card, boolean answers) {
        check(card);
        silent.set(card, answers ? 0 : 1);
    }

    @Override
    public List<GpuEvent> awaitEvents(Duration timeout) throws InterruptedException {
        requireOpen();
        long deadline = System.nanoTime()
                + (timeout.isNegative() ? Duration.ZERO : timeout.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : timeout)
                        .toNanos();
        List<GpuEvent> found = new ArrayList<>();
        while (true) {
            eventsFile.ifPresent(this::readEventsFile);
            events.drainTo(found);
            long left = deadline - System.nanoTime();
            if (!found.isEmpty() || left <= 0 || closed) {
                return found;
            }
            long slice =
                    eventsFile.isPresent() ? Math.min(left, TimeUnit.MILLISECONDS.toNanos(FILE_POLL_MILLIS)) : left;
            GpuEvent next = events.poll(slice, TimeUnit.NANOSECONDS);
            if (next != null) {
                found.add(next);
            }
        }
    }

    @Override
    public boolean answers(int card) {
        return !closed && card >= 0 && card < silent.length() && silent.get(card) == 0;
    }

    @Override
    public void close() {
        closed = true;
    }

    private void readEventsFile(SimulatedEventsFile file) {
        for (SimulatedEventsFile.Line line : file.newLines()) {
            String text = line.text().strip();
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            String[] words = text.split("\\s+");
            try {
                switch (words[0]) {
                    case "xid" -> inject(new GpuEvent.Xid(Integer.parseInt(words[1]), Long.parseLong(words[2])));
                    case "ecc" -> inject(new GpuEvent.DoubleBitEcc(Integer.parseInt(words[1])));
                    case "down" -> setAnswers(Integer.parseInt(words[1]), false);
                    case "up" -> setAnswers(Integer.parseInt(words[1]), true);
                    case "process" ->
                        process(
                                Integer.parseInt(words[1]),
                                Integer.parseInt(words[2]),
                                Long.parseLong(words[3]),
                                words.length > 4 ? Integer.parseInt(words[4]) : -1);
                    case "exit" -> exit(Integer.parseInt(words[1]));
                    default -> throw new IllegalArgumentException("unknown word " + words[0]);
                }
            } catch (RuntimeException e) { // a person typed it: say so and go on, the agent must not stop over it
                LOG.warn(
                        "{}:{}: cannot use \"{}\" ({}); write xid <card> <code>, ecc <card>, down <card>, up <card>,"
                                + " process <card> <pid> <MiB> [<SM %>] or exit <pid>",
                        file.path(), line.number(), line.text(), e.getMessage());
            }
        }
    }

    private void check(int card) {
        if (card < 0 || card >= silent.length()) {
            throw new IllegalArgumentException("the simulated node has %d cards (0..%d), no card %d"
                    .formatted(silent.length(), silent.length() - 1, card));
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the simulated backend is closed");
        }
    }
}
