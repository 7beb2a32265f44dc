package io.elasticgpu.localcluster.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.elasticgpu.api.v1alpha1.Annotations;
import io.elasticgpu.api.v1alpha1.NodeUsage;
import io.elasticgpu.api.v1alpha1.PodGrant;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the demo's cards use, published as a node agent measuring through NVML publishes it
 * ({@link Annotations#USAGE}), so that the demo shows use beside what was granted. kwok's pods run no process, so the
 * figures are made up, and the demo says so: each container granted a share uses a fixed part of it (50 to 99 % of
 * its memory and compute, always the same part for the same pod).
 */
final class DemoUsage implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoUsage.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How often the demo nodes' usage is published, as often as the node agent's default. */
    static final Duration EVERY = Duration.ofSeconds(10);

    private final KubernetesClient client;
    private final Set<String> nodes;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("egpu-demo-usage").factory());

    private DemoUsage(KubernetesClient client, Set<String> nodes) {
        this.client = client;
        this.nodes = Set.copyOf(nodes);
    }

    /** Publishes the usage of {@code nodes} now and every {@link #EVERY}. */
    static DemoUsage start(KubernetesClient client, Set<String> nodes) {
        DemoUsage u = new DemoUsage(client, nodes);
        u.loop.scheduleWithFixedDelay(u::publish, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return u;
    }

    /** Publishes every demo node's usage now; a failure is logged (the next round tries again). */
    synchronized void publish() {
        try {
            List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
            String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
            for (String node : nodes) {
                String json = of(node, pods, now).toJson();
                client.nodes()
                        .withName(node)
                        .patch(
                                PatchContext.of(PatchType.JSON_MERGE),
                                JSON.writeValueAsString(
                                        Map.of("metadata", Map.of("annotations", Map.of(Annotations.USAGE, json)))));
            }
        } catch (KubernetesClientException | IllegalArgumentException | JsonProcessingException e) {
            LOG.warn("cannot publish the demo nodes' usage: {}", e.getMessage());
        }
    }

    /** What the containers of {@code pods} granted shares on {@code node} use there, measured at {@code now}. Pure. */
    static NodeUsage of(String node, List<Pod> pods, String now) {
        List<NodeUsage.ContainerUsage> used = new ArrayList<>();
        for (Pod p : pods) {
            var annotations = p.getMetadata().getAnnotations();
            String grant = annotations == null ? null : annotations.get(Annotations.ALLOCATION);
            if (grant == null || !node.equals(p.getSpec().getNodeName())) {
                continue;
            }
            double part = part(p.getMetadata().getName());
            PodGrant.fromJson(grant)
                    .containers()
                    .forEach((container, shares) -> shares.forEach(s -> used.add(new NodeUsage.ContainerUsage(
                            p.getMetadata().getNamespace(),
                            p.getMetadata().getName(),
                            container,
                            s.card(),
                            Math.round(s.memoryMib() * part),
                            (int) Math.round(s.milli() / 10.0 * part),
                            1))));
        }
        return new NodeUsage(now, used, List.of());
    }

    /** The part of its share a pod named {@code pod} uses: 0.50 to 0.99, the same for the same name. */
    static double part(String pod) {
        return 0.5 + Math.floorMod(pod.hashCode(), 50) / 100.0;
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
