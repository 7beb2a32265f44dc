package io.elasticgpu.bench.arena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad arena arguments stop it before any cluster starts, saying what to change. */
class ArenaOptionsTest {

    @TempDir
    Path shared;

    private ArenaOptions parse(String... args) throws Exception {
        Path trace = shared.resolve("traces/openb/openb_pod_list_default.csv");
        Files.createDirectories(trace.getParent());
        Files.writeString(trace, "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n");
        return ArenaOptions.parse(List.of(args), shared);
    }

    @Test
    void everyContenderRunsByDefaultAndTheReplaysOptionsPassThrough() throws Exception {
        ArenaOptions o = parse("--max-nodes", "100", "--seed", "43", "--json", "a.json", "--chart", "a.svg");
        assertThat(o.contenders()).extracting(Contender::name).containsExactlyElementsOf(ArenaOptions.DEFAULT_CONTENDERS);
        assertThat(o.replay().maxNodes()).isEqualTo(100);
        assertThat(o.replay().seed()).isEqualTo(43);
        assertThat(o.replay().baseline()).isFalse();
        assertThat(o.json()).isEqualTo(Path.of("a.json"));
        assertThat(o.chart()).isEqualTo(Path.of("a.svg"));
        assertThat(parse("--contenders", "elastic, no-sharing").contenders())
                .containsExactly(new Contender.Elastic("elastic", false), new Contender.WholeCards());
    }

    @Test
    void whatTheArenaDecidesForEachContenderCannotBeGiven() {
        assertThatThrownBy(() -> parse("--policy", "fgd")).hasMessageContaining("--policy is cluster-replay's")
                .hasMessageContaining("--contenders");
        assertThatThrownBy(() -> parse("--contenders", "elastic,elastic")).hasMessageContaining("names one twice");
        assertThatThrownBy(() -> parse("--contenders", ",")).hasMessageContaining("names none");
        assertThatThrownBy(() -> parse("--contenders")).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> parse("--cut", "0")).hasMessageContaining("--cut");
    }
}
