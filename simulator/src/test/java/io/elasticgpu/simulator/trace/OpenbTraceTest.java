package io.elasticgpu.simulator.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.core.model.Ask;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpenbTraceTest {

    @TempDir
    Path dir;

    private Path write(String name, String... lines) throws IOException {
        return Files.write(dir.resolve(name), List.of(lines));
    }

    @Test
    void readsNodesAndPodsIncludingModelConstraints() throws IOException {
        write(
                OpenbTrace.GPU_NODE_LIST,
                "sn,cpu_milli,memory_mib,gpu,model",
                "n1,96000,393216,8,G2",
                "n2,64000,262144,2,V100M32");
        Path pods = write(
                "pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase",
                "p0,8000,30517,0,0,,BE,Running",
                "p1,6000,12288,1,460,,LS,Running",
                "p2,16000,32768,1,1000,V100M16|V100M32,LS,Running",
                "p3,88000,327680,8,1000,nan,LS,Running");
        Trace trace = OpenbTrace.read(pods);
        assertThat(trace.name()).isEqualTo("pods");
        assertThat(trace.nodes()).extracting(n -> n.cards().size()).containsExactly(8, 2);
        assertThat(trace.nodes().get(1).cards().getFirst().memoryMib()).isEqualTo(32_768);
        assertThat(trace.capacityMilli()).isEqualTo(10_000);
        assertThat(trace.pods())
                .extracting(TracePod::ask)
                .containsExactly(
                        Ask.cpuOnly(8000, 30517),
                        Ask.computeSlice(6000, 12288, 460),
                        Ask.wholeCards(16000, 32768, 1).withModels(List.of("V100M16", "V100M32")),
                        Ask.wholeCards(88000, 327680, 8));
    }

    @Test
    void readsTheFiveColumnMultiGpuFormat() throws IOException {
        Path pods = write("multigpu.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,12000,16384,2,1000");
        assertThat(OpenbTrace.readPods(pods)).containsExactly(new TracePod("p0", Ask.wholeCards(12000, 16384, 2)));
    }

    @Test
    void podsOfOneShareShareOneRequest() throws IOException {
        Path pods = write("p.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "a,1,1,1,500", "b,1,1,1,500");
        List<TracePod> read = OpenbTrace.readPods(pods);
        assertThat(read.get(0).ask()).isSameAs(read.get(1).ask());
    }

    @Test
    void aMalformedNumberNamesFileLineAndColumn() throws IOException {
        Path pods = write("bad.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,8000,1,0,0", "p1,eight,1,0,0");
        assertThatThrownBy(() -> OpenbTrace.readPods(pods))
                .isInstanceOf(TraceFormatException.class)
                .hasMessage(
                        pods + ":3: column cpu_milli: expected a whole number 0..9223372036854775807, found \"eight\"");
    }

    @Test
    void milliAboveAWholeCardIsRejected() throws IOException {
        Path pods = write("bad.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1,1,1,1500");
        assertThatThrownBy(() -> OpenbTrace.readPods(pods))
                .hasMessage(pods + ":2: column gpu_milli: expected a whole number 0..1000, found 1500");
    }

    @Test
    void gpusWithoutMilliAreRejected() throws IOException {
        Path pods = write("bad.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1,1,2,0");
        assertThatThrownBy(() -> OpenbTrace.readPods(pods))
                .hasMessage(pods + ":2: column gpu_milli: expected 1..1000 milli-GPU for a pod with 2 GPUs, found 0");
    }

    @Test
    void aMissingColumnIsNamedWithWhatWasFound() throws IOException {
        Path nodes = write("nodes.csv", "sn,cpu_milli,gpu,model", "n1,1,1,T4");
        assertThatThrownBy(() -> OpenbTrace.readNodes(nodes))
                .hasMessage(nodes
                        + ":1: column memory_mib: missing from the header; expected columns [sn, cpu_milli, "
                        + "memory_mib, gpu, model],"
                        + " found [sn, cpu_milli, gpu, model]");
    }

    @Test
    void aShortRowIsRejected() throws IOException {
        Path nodes = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model", "n1,1,1,1");
        assertThatThrownBy(() -> OpenbTrace.readNodes(nodes))
                .hasMessage(nodes + ":2: column *: expected 5 cells like the header, found 4");
    }

    @Test
    void aGpuNodeNeedsAModel() throws IOException {
        Path nodes = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model", "n1,1,1,4,");
        assertThatThrownBy(() -> OpenbTrace.readNodes(nodes))
                .hasMessage(
                        nodes + ":2: column model: expected the GPU model of a node with 4 GPUs, found an empty cell");
    }

    @Test
    void aMissingFileSaysWhatToGive() {
        Path missing = dir.resolve("nope.csv");
        assertThatThrownBy(() -> OpenbTrace.readPods(missing))
                .hasMessage(missing + ": no such file; give the path of an openb CSV file");
    }

    @Test
    void aMissingNodeListSaysHowToGiveIt() throws IOException {
        Path pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1,1,0,0");
        assertThatThrownBy(() -> OpenbTrace.read(pods))
                .hasMessage(dir.resolve(OpenbTrace.GPU_NODE_LIST) + ": no such file; give the node list with --nodes");
    }
}
