package io.elasticgpu.bench.arena;

import io.elasticgpu.bench.cluster.ChartConfig;
import io.elasticgpu.bench.cluster.ClusterReplay;
import io.elasticgpu.bench.cluster.DraReplay;
import io.elasticgpu.bench.cluster.PodStream;
import io.elasticgpu.bench.cluster.ProcessUse;
import io.elasticgpu.bench.cluster.ReplayPlan;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.localcluster.controlplane.Binaries;
import io.elasticgpu.localcluster.controlplane.ControlPlane;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code bench/run arena}: the same trace, node list and pod order through each contender, each in a fresh control
 * plane of its own (real kube-apiserver, etcd, kube-scheduler; one kwok node per node of the list), pods created by the
 * same concurrent clients in the same order; then the audit from the API alone.
 */
public final class Arena {

    private Arena() {}

    /** Runs every contender of {@code options} in turn under {@code workDir}; progress goes to {@code log}. */
    public static List<Standing> run(ArenaOptions options, Path repository, Path workDir, PrintStream log) {
        ReplayPlan plan = ReplayPlan.of(options.replay());
        for (Contender c : options.contenders()) {
            if (c instanceof Contender.Elastic e) {
                plan.experiment().policy(e.policy(), plan.seed()); // an unknown policy fails now, naming the known ones
            }
        }
        boolean hami = options.contenders().stream().anyMatch(Contender.Hami.class::isInstance);
        Stage stage = new Stage(
                repository, ChartConfig.render(repository), plan, hami ? HamiScheduler.build(repository) : null);
        log.printf(
                "arena: %s, %d nodes, %d pods to the %.0f %% cut; contenders %s%n",
                plan.traceName(),
                plan.nodes().size(),
                plan.pods().size(),
                options.replay().cutPct(),
                options.contenders().stream().map(Contender::name).toList());
        List<Standing> standings = new ArrayList<>();
        for (Contender c : options.contenders()) {
            Standing s = runOne(c, stage, options, workDir.resolve(c.name()), log);
            log.printf(
                    "arena: %s: %.2f %% allocated, %d bound, %d pending %s, %.1f pods/s, %d cards over capacity, %d "
                            + "GPU pods unaccounted%n",
                    s.name(),
                    s.allocationPct(),
                    s.podsBound(),
                    s.podsPending(),
                    s.pendingByShape(),
                    s.podsPerSecond(),
                    s.overCommittedCards(),
                    s.unaccounted());
            standings.add(s);
        }
        return standings;
    }

    private static Standing runOne(Contender contender, Stage stage, ArenaOptions options, Path dir, PrintStream log) {
        ReplayPlan plan = stage.plan();
        log.printf("arena: %s: a fresh control plane in %s%n", contender.name(), dir);
        try (ControlPlane cp = ControlPlane.start(ControlPlane.Options.of(dir, Binaries.locate(Binaries.E2E_DIR)));
                KubernetesClient client = cp.newClient()) {
            // Cards the node list gives no memory get some, as a real device plugin reports: HAMi reads a share of
            // memory in percent of it, and a whole card as all of it (0 MiB would let any number share a card).
            Map<String, Node> nodes =
                    ClusterReplay.createNodes(client, plan, DraReplay::withMemory, contender::node, log);
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(Stage.NAMESPACE)
                            .endMetadata()
                            .build())
                    .create();
            // Pods are refused until kube-controller-manager has made the namespace's default ServiceAccount.
            client.serviceAccounts()
                    .inNamespace(Stage.NAMESPACE)
                    .withName("default")
                    .waitUntilCondition(java.util.Objects::nonNull, 2, java.util.concurrent.TimeUnit.MINUTES);
            List<Pod> pods = new ArrayList<>(plan.pods().size());
            for (int i = 0; i < plan.pods().size(); i++) {
                pods.add(contender.pod(plan.pods().get(i), i, stage));
            }
            log.printf("arena: %s: warming up the harness%n", contender.name());
            PodStream.warmUp(client, pods, options.replay().clients());
            try (Contender.Running running = contender.start(cp, client, stage)) {
                log.printf("arena: %s: creating %d pods%n", contender.name(), pods.size());
                PodStream.Streamed streamed = PodStream.run(
                        client,
                        pods,
                        options.replay().clients(),
                        options.replay().gated(),
                        contender.quiet(),
                        done -> log.printf("  %d created%n", done));
                ProcessUse scheduler = ProcessUse.of(running.pid());
                ProcessUse kubeScheduler = ProcessUse.of(cp.pids().get("kube-scheduler"));
                List<Pod> placed =
                        client.pods().inNamespace(Stage.NAMESPACE).list().getItems();
                Contender.Records records = contender.audit(placed, client, nodes, stage);
                return Standing.of(
                        contender.name(),
                        plan.traceName(),
                        plan.pods(),
                        plan.capacity(),
                        placed,
                        streamed,
                        records.overCommitted(),
                        records.unaccounted(),
                        scheduler,
                        kubeScheduler);
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("contender %s: %s".formatted(contender.name(), e.getMessage()), e);
        }
    }
}
