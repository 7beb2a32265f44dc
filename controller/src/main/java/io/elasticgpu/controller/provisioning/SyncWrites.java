package io.elasticgpu.controller.provisioning;

import io.elasticgpu.api.v1alpha1.ElasticGPU;
import io.elasticgpu.api.v1alpha1.ElasticGPUClaim;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus;
import io.elasticgpu.api.v1alpha1.ElasticGPUStatus.Phase;
import io.elasticgpu.controller.claims.ClaimBook;
import io.elasticgpu.controller.claims.ClaimKey;
import io.elasticgpu.controller.claims.ClaimState;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes of one sync of {@link ElasticGPUController}, and how they went. A write the API server refuses (other
 * than a conflict) is kept, not thrown, so that the sync goes on with the next object: one object refused again and
 * again cannot hold back every other ElasticGPU and every claim's status. A write that gets no answer at all (the
 * API server unreachable) ends the sync at once, since every other write would wait for its timeout too. Used on
 * the sync thread only.
 */
final class SyncWrites {

    private static final Logger LOG = LoggerFactory.getLogger(SyncWrites.class);

    private final KubernetesClient client;
    private final List<String> failures = new ArrayList<>();
    private int conflicts;
    private int claimWrites;

    SyncWrites(KubernetesClient client) {
        this.client = client;
    }

    /** A new sync begins: nothing written, nothing failed. */
    void begin() {
        failures.clear();
        conflicts = 0;
        claimWrites = 0;
    }

    /** What the sync found to do and how its writes went. */
    SyncReport report(GpuPlan plan, long millis) {
        return new SyncReport(
                plan.create().size(),
                plan.update().size(),
                plan.delete().size(),
                claimWrites,
                conflicts,
                failures.size(),
                millis);
    }

    /** Throws the sync's failures together, after every write was tried, so that the sync runs again. */
    void throwIfFailed() {
        if (!failures.isEmpty()) {
            throw new IllegalStateException("%d of this sync's writes failed (the others were made); first: %s"
                    .formatted(failures.size(), failures.getFirst()));
        }
    }

    /** Runs one write of another kind; a failure is kept for the end of the sync rather than thrown. */
    void attempt(String what, Runnable write) {
        try {
            write.run();
        } catch (RuntimeException e) {
            failures.add(what + ": " + e.getMessage());
        }
    }

    /** Objects from an informer's cache are shared: change only copies. */
    ElasticGPU copyOf(ElasticGPU gpu) {
        return client.getKubernetesSerialization().clone(gpu);
    }

    void phase(ElasticGPU gpu, Phase phase) {
        try {
            ElasticGPU copy = copyOf(gpu);
            copy.setStatus(new ElasticGPUStatus());
            copy.getStatus().setPhase(phase);
            client.resource(copy).updateStatus();
        } catch (KubernetesClientException e) {
            ignoreConflicts(
                    e, "write the phase of ElasticGPU " + gpu.getMetadata().getName());
        }
    }

    /**
     * Binds a pre-created ElasticGPU to a claim: {@code gpu}, a copy with its claimRef set, written, then its phase.
     *
     * @return whether it was bound
     */
    boolean bind(ElasticGPU gpu, ClaimKey claim) {
        String name = gpu.getMetadata().getName();
        try {
            phase(client.resource(gpu).update(), Phase.Bound);
            LOG.info("bound claim {} to the pre-created ElasticGPU {}", claim, name);
            return true;
        } catch (KubernetesClientException e) {
            ignoreConflicts(e, "bind ElasticGPU " + name + " to claim " + claim);
            return false;
        }
    }

    void create(DesiredGpu want) {
        try {
            ElasticGPU created = client.resource(want.toResource()).create();
            created.setStatus(want.status());
            client.resource(created).updateStatus();
            LOG.info("created ElasticGPU {} for {}", want.name(), want.podRef());
        } catch (KubernetesClientException e) {
            ignoreConflicts(e, "create ElasticGPU " + want.name());
        }
    }

    void update(ElasticGPU have, DesiredGpu want) {
        try {
            DesiredGpu was = DesiredGpu.from(have);
            ElasticGPU next = copyOf(have);
            if (!was.withPhase(want.phase()).equals(want)) {
                ElasticGPU copy = want.toResource();
                copy.getMetadata().setResourceVersion(have.getMetadata().getResourceVersion());
                copy.setStatus(have.getStatus());
                next = client.resource(copy).update();
            }
            if (was.phase() != want.phase()) {
                next.setStatus(want.status());
                client.resource(next).updateStatus();
            }
            LOG.info("updated ElasticGPU {}", want.name());
        } catch (KubernetesClientException e) {
            ignoreConflicts(e, "update ElasticGPU " + want.name());
        }
    }

    void delete(String name) {
        try {
            client.resources(ElasticGPU.class).withName(name).delete();
            LOG.info("deleted ElasticGPU {}", name);
        } catch (KubernetesClientException e) {
            ignoreConflicts(e, "delete ElasticGPU " + name);
        }
    }

    void claim(ClaimBook book, ClaimKey key, ClaimState state) {
        ElasticGPUClaim claim = book.claim(key).orElseThrow();
        if (state.sameAs(claim.getStatus())) {
            return;
        }
        claimWrites++;
        try {
            ElasticGPUClaim copy = new ElasticGPUClaim();
            copy.setMetadata(claim.getMetadata());
            copy.setSpec(claim.getSpec());
            copy.setStatus(state.toStatus());
            client.resource(copy).updateStatus();
            LOG.info("claim {}: {}", key, state);
        } catch (KubernetesClientException e) {
            ignoreConflicts(e, "write the status of claim " + key);
        }
    }

    /**
     * 409 (stale cache, or already created) and 404 (already gone) resolve with the next event; other answers are
     * kept. No answer at all ends the sync.
     */
    private void ignoreConflicts(KubernetesClientException e, String what) {
        if (e.getCode() <= 0) { // fabric8 gives -1 to a request that got no HTTP answer
            throw new KubernetesClientException(
                    "cannot " + what + ", the API server did not answer: " + e.getMessage(), e);
        }
        if (e.getCode() == 409 || e.getCode() == 404) {
            conflicts++;
            LOG.debug("{}: {} (the next sync settles it)", what, e.getCode());
            return;
        }
        failures.add("cannot " + what + ": " + e.getMessage());
    }
}
