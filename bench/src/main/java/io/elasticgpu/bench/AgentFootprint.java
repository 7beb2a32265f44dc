package io.elasticgpu.bench;

import io.elasticgpu.node.agent.NodeAgent;
import io.elasticgpu.node.discovery.SimulatedBackend;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;

/** An agent process on its own, for measuring start-up and memory: prints "plugins" once kubelet has them all. */
final class AgentFootprint {

    /** The JVM options the agent's container runs with (a small heap, one GC thread). */
    static final List<String> JVM_OPTIONS = List.of(
            "-XX:+UseSerialGC", "-Xmx64m", "-Xss512k", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED");

    private AgentFootprint() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        NodeAgent agent = NodeAgent.start(
                NodeAgentBenchmark.config(dir, Path.of(args[1])),
                SimulatedBackend.of(NodeAgentBenchmark.eightCards()),
                new MemoryCluster(),
                InstantSource.system());
        while (!agent.registered()) {
            Thread.sleep(10);
        }
        System.out.println(agent.resources().size() + " plugins");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
