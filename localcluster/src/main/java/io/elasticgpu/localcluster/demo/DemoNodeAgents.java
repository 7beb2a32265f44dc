package io.elasticgpu.localcluster.demo;

import io.elasticgpu.api.v1alpha1.NodeInventory;
import io.elasticgpu.core.model.Link;
import io.elasticgpu.core.model.LinkKind;
import io.elasticgpu.core.model.Topology;
import io.elasticgpu.localcluster.nodes.GpuNodeSpec;
import io.elasticgpu.node.agent.AgentConfig;
import io.elasticgpu.node.agent.NodeAgentService;
import io.elasticgpu.node.discovery.Gpu;
import io.elasticgpu.node.discovery.GpuEvent;
import io.elasticgpu.node.discovery.Hardware;
import io.elasticgpu.node.discovery.SimulatedBackend;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A node agent for each fake node, started as {@code egpu node-agent} starts it ({@link NodeAgentService}) on simulated
 * GPUs, with {@link AgentConfig.Api#NONE}: kwok's nodes have no kubelet, so the agent publishes the node's labels and
 * {@code elasticgpu.io/inventory} and keeps its cards' health, and offers the cards to no kubelet API. What the cards
 * use is made up ({@link DemoUsage}): kwok's pods run no process to measure.
 */
final class DemoNodeAgents implements AutoCloseable {

    /** The driver version the simulated nodes report. */
    static final String DRIVER = "570.86.15";
    /** NVML's Xid for a card that has fallen off the bus: critical, the card is unhealthy at once. */
    static final long XID_FALLEN_OFF_THE_BUS = 79;

    private record Agent(SimulatedBackend backend, NodeAgentService service) {}

    private final Map<String, Agent> agents = new LinkedHashMap<>();
    private DemoUsage usage;

    /** Publishes every node's inventory once, then keeps publishing on every health change. */
    static DemoNodeAgents start(KubernetesClient client, List<GpuNodeSpec> nodes) {
        DemoNodeAgents all = new DemoNodeAgents();
        for (GpuNodeSpec spec : nodes) {
            SimulatedBackend backend = SimulatedBackend.of(hardware(spec));
            AgentConfig config = AgentConfig.builder(spec.name())
                    .withApi(AgentConfig.Api.NONE)
                    .build();
            all.agents.put(spec.name(), new Agent(backend, NodeAgentService.start(client, config, backend)));
        }
        all.usage = DemoUsage.start(client, all.agents.keySet());
        return all;
    }

    /** Publishes what the cards use now, as the next round would. */
    void publishUsage() {
        usage.publish();
    }

    /** Makes the simulated driver report Xid 79 on the card, as a real card falling off the bus would. */
    void failCard(String node, int card) {
        Agent agent = agents.get(node);
        if (agent == null) {
            throw new IllegalArgumentException(
                    "no demo node agent runs for node " + node + "; nodes: " + agents.keySet());
        }
        agent.backend().inject(new GpuEvent.Xid(card, XID_FALLEN_OFF_THE_BUS));
    }

    /** The cards, links and NUMA nodes the fake node's inventory describes, as discovery would report them. */
    static Hardware hardware(GpuNodeSpec spec) {
        NodeInventory inventory = spec.inventory();
        List<Gpu> gpus = new ArrayList<>();
        for (NodeInventory.Card c : inventory.cards()) {
            gpus.add(new Gpu(
                    c.index(),
                    c.uuid(),
                    c.model(),
                    c.memoryMib(),
                    "00000000:%02X:00.0".formatted(0x10 + c.index()),
                    c.index(),
                    c.numa(),
                    false));
        }
        Topology.Builder topology = Topology.builder(gpus.size());
        for (int a = 0; a < gpus.size(); a++) {
            for (int b = a + 1; b < gpus.size(); b++) {
                topology.link(
                        a,
                        b,
                        Link.of(
                                gpus.get(a).numaNode() == gpus.get(b).numaNode()
                                        ? LinkKind.NUMA_NODE
                                        : LinkKind.CROSS_SOCKET));
            }
        }
        inventory.links().forEach(l -> topology.link(l.a(), l.b(), Link.nvlink(l.nvlinks())));
        return new Hardware(DRIVER, gpus, topology.build());
    }

    @Override
    public void close() {
        if (usage != null) {
            usage.close();
        }
        agents.values().forEach(a -> {
            a.service().close();
            a.backend().close();
        });
    }
}
