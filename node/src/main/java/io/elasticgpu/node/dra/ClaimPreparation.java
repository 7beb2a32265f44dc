package io.elasticgpu.node.dra;

import io.elasticgpu.api.v1alpha1.GpuAsk.Family;
import io.elasticgpu.api.v1alpha1.MpsLimits;
import io.elasticgpu.api.v1alpha1.PodGrant.Share;
import io.elasticgpu.node.allocation.CardTable;
import io.elasticgpu.node.deviceplugin.ContainerEnvironment;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.isolation.MpsAccess;
import io.elasticgpu.node.isolation.MpsException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Prepares and unprepares claims, idempotently: a claim prepared before (in this run or, through the checkpoint, an
 * earlier one) gets the same answer again, and unpreparing an unknown claim succeeds. Before a new claim is prepared,
 * its shares are checked against what the node's prepared claims hold, so that no card is ever handed out beyond its
 * capacity whatever the API says (rule 2 at the node). The API is read outside the lock; the lock covers only the
 * check and two local file writes. Thread-safe.
 */
public final class ClaimPreparation {

    private final ClaimSource source;
    private final Checkpoint checkpoint;
    private final CdiSpecs cdi;
    private final Hardware hardware;
    private final CardTable cards;
    private final ContainerEnvironment environment;
    private final String pool;
    private final ClaimIsolation isolation;

    public ClaimPreparation(
            ClaimSource source,
            Checkpoint checkpoint,
            CdiSpecs cdi,
            Hardware hardware,
            CardTable cards,
            ContainerEnvironment environment,
            String pool) {
        this(source, checkpoint, cdi, hardware, cards, environment, pool, ClaimIsolation.NONE);
    }

    /** @param isolation what holds each request's share to its limits before the CDI spec is written */
    public ClaimPreparation(
            ClaimSource source,
            Checkpoint checkpoint,
            CdiSpecs cdi,
            Hardware hardware,
            CardTable cards,
            ContainerEnvironment environment,
            String pool,
            ClaimIsolation isolation) {
        this.isolation = isolation;
        this.source = source;
        this.checkpoint = checkpoint;
        this.cdi = cdi;
        this.hardware = hardware;
        this.cards = cards;
        this.environment = environment;
        this.pool = pool;
    }

    /**
     * @throws ClaimException when the claim cannot be prepared (not allocated, not ours, over a card's capacity)
     */
    public List<PreparedDevice> prepare(ClaimRef ref) {
        synchronized (this) {
            var known = checkpoint.get(ref.uid());
            if (known.isPresent()) {
                cdi.write(ref.uid(), known.get().cdiSpec()); // again, in case /var/run was emptied by a reboot
                return known.get().devices();
            }
        }
        AllocatedClaim claim = source.allocated(ref);
        synchronized (this) {
            var raced = checkpoint.get(ref.uid()); // kubelet asked twice at once: the first answer stands
            if (raced.isPresent()) {
                return raced.get().devices();
            }
            checkCapacity(ref, devices(ref, claim.devices()));
            PreparedClaim prepared = describe(ref, claim); // starts the MPS daemons of its shares, if isolation is on
            cdi.write(
                    ref.uid(),
                    prepared.cdiSpec()); // before the checkpoint: a crash between leaves a spec unprepare removes
            checkpoint.put(prepared);
            return prepared.devices();
        }
    }

    public synchronized void unprepare(ClaimRef ref) {
        cdi.remove(ref.uid());
        checkpoint.remove(ref.uid());
        isolation.release(ref);
    }

    /**
     * Prepares again, from their allocation, the claims in {@code held} that the checkpoint has no record of (it was
     * deleted or lost with the node's disk), so that they count against their cards before kubelet prepares anything
     * new, their shares' MPS daemons are held, and kubelet's unprepare finds them. Called once at start, before the
     * agent registers with kubelet. A claim held now already holds its cards, so none is refused for capacity here.
     *
     * @param held the claims that pods on this node hold ({@link ClaimSource#held})
     */
    public Rebuilt rebuild(List<ClaimRef> held) {
        int known = 0;
        List<PreparedClaim> rebuilt = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (ClaimRef ref : held) {
            synchronized (this) {
                if (checkpoint.get(ref.uid()).isPresent()) {
                    known++;
                    continue;
                }
            }
            try {
                AllocatedClaim claim = source.allocated(ref); // the API, read outside the lock
                synchronized (this) {
                    PreparedClaim prepared = describe(ref, claim);
                    cdi.write(ref.uid(), prepared.cdiSpec());
                    checkpoint.put(prepared);
                    rebuilt.add(prepared);
                }
            } catch (ClaimException | java.io.UncheckedIOException e) {
                failed.add(e.getMessage());
            }
        }
        return new Rebuilt(known, rebuilt, failed);
    }

    /**
     * Unprepares the claims of {@code before} that are not in {@code held}: no pod on this node holds them any more.
     * kubelet unprepares only what it prepared, so a claim rebuilt for a pod that was deleted before kubelet prepared
     * it would otherwise count against its card for ever. {@code before} must be read before {@code held}, so that a
     * claim prepared in between is left alone.
     *
     * @return the claims unprepared
     */
    public List<ClaimRef> prune(List<PreparedClaim> before, List<ClaimRef> held) {
        java.util.Set<String> holding = new java.util.HashSet<>();
        held.forEach(c -> holding.add(c.uid()));
        List<ClaimRef> pruned = new ArrayList<>();
        for (PreparedClaim p : before) {
            if (!holding.contains(p.claim().uid())) {
                unprepare(p.claim());
                pruned.add(p.claim());
            }
        }
        return pruned;
    }

    /** The claims prepared now. */
    public synchronized List<PreparedClaim> prepared() {
        return List.copyOf(checkpoint.all());
    }

    PreparedClaim describe(ClaimRef ref, AllocatedClaim claim) {
        List<ClaimDevice> devices = claim.devices();
        int processes = isolation == ClaimIsolation.NONE ? 1 : processes(ref, claim.processes());
        Map<String, CdiSpecs.Edits> edits = new LinkedHashMap<>();
        for (String request : ClaimDevice.requests(devices)) {
            List<ClaimDevice> mine =
                    devices.stream().filter(d -> d.request().equals(request)).toList();
            List<Share> shares = mine.stream()
                    .map(d -> new Share(d.card(), cards.uuid(d.card()), d.milli(), d.memoryMib()))
                    .toList();
            List<String> nodes = mine.stream()
                    .map(d -> hardware.gpus().get(d.card()).devicePath())
                    .distinct()
                    .toList();
            // Both memory and compute: one CDI device tells a container everything, where the device plugin needs a
            // part per resource. Our own family: DRA claims have no other project's names to answer in.
            Optional<MpsAccess> mps;
            try {
                mps = isolation.isolate(ref, request, shares, processes);
            } catch (IllegalArgumentException | MpsException e) {
                throw new ClaimException("claim %s, request %s: %s".formatted(ref, request, e.getMessage()));
            }
            edits.put(
                    CdiSpecs.deviceName(ref.uid(), request),
                    new CdiSpecs.Edits(
                            nodes,
                            environment.variables(shares, Family.ELASTIC_GPU, cards, true, true, mps),
                            shares.stream().map(Share::uuid).distinct().toList()));
        }
        return new PreparedClaim(ref, devices(ref, devices), CdiSpecs.spec(edits));
    }

    private List<PreparedDevice> devices(ClaimRef ref, List<ClaimDevice> devices) {
        List<PreparedDevice> out = new ArrayList<>();
        for (ClaimDevice d : devices) {
            String id = CdiSpecs.qualified(CdiSpecs.deviceName(ref.uid(), d.request()));
            out.add(new PreparedDevice(
                    List.of(d.request()),
                    pool,
                    d.device(),
                    List.of(id),
                    d.shareId().orElse(""),
                    d.card(),
                    d.memoryMib(),
                    d.milli()));
        }
        return out;
    }

    private static int processes(ClaimRef ref, String annotation) {
        try {
            return MpsLimits.processes(java.util.Map.of(MpsLimits.PROCESSES_ANNOTATION, annotation));
        } catch (IllegalArgumentException e) {
            throw new ClaimException("claim %s: %s".formatted(ref, e.getMessage()));
        }
    }

    private void checkCapacity(ClaimRef ref, List<PreparedDevice> adding) {
        long[] memory = new long[cards.size()];
        int[] milli = new int[cards.size()];
        List<PreparedDevice> all = new ArrayList<>(adding);
        checkpoint.all().forEach(p -> all.addAll(p.devices()));
        all.forEach(d -> {
            memory[d.card()] += d.memoryMib();
            milli[d.card()] += d.milli();
        });
        for (PreparedDevice d : adding) {
            long capacity = cards.memoryMib(d.card());
            if (memory[d.card()] > capacity || milli[d.card()] > 1000) {
                throw new ClaimException(
                        ("claim %s: card %d (%s) would hold %d of %d MiB and %d of 1000 milli with the claims"
                                        + " prepared on it; refused so that the card is not over-committed (is a "
                                        + "ResourceSlice edited by hand?)")
                                .formatted(ref, d.card(), d.device(), memory[d.card()], capacity, milli[d.card()]));
            }
        }
    }
}
