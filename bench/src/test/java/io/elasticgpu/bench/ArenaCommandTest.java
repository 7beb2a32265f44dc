package io.elasticgpu.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.elasticgpu.bench.arena.ArenaOptions;
import io.elasticgpu.bench.arena.Contender;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Bad arena arguments stop it before any cluster starts, saying what to change. */
class ArenaCommandTest {

    @TempDir
    Path dir;

    private ArenaOptions parse(String... args) throws Exception {
        Path trace = Files.writeString(dir.resolve("pods.csv"), "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n");
        String[] withTrace = new String[args.length + 2];
        withTrace[0] = "--trace";
        withTrace[1] = trace.toString();
        System.arraycopy(args, 0, withTrace, 2, args.length);
        return Lab.parse(new ArenaCommand(), withTrace).options();
    }

    @Test
    void everyContenderRunsByDefaultAndTheReplaysOptionsPassThrough() throws Exception {
        ArenaOptions o = parse("--max-nodes", "100", "--seed", "43", "--json", "a.json", "--chart", "a.svg");
        assertThat(o.contenders())
                .extracting(Contender::name)
                .containsExactlyElementsOf(ArenaOptions.DEFAULT_CONTENDERS);
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
        assertThatThrownBy(() -> parse("--policy", "fgd"))
                .hasMessageContaining("--policy is cluster-replay's")
                .hasMessageContaining("--contenders");
        assertThatThrownBy(() -> parse("--no-baseline")).hasMessageStartingWith("--no-baseline is cluster-replay's");
        assertThatThrownBy(() -> parse("--warm-extender", "10"))
                .hasMessageStartingWith("--warm-extender is a cluster-replay option");
        assertThatThrownBy(() -> parse("--contenders", "elastic,elastic")).hasMessageContaining("names one twice");
        assertThatThrownBy(() -> parse("--contenders", ",")).hasMessageContaining("names none");
        assertThatThrownBy(() -> parse("--contenders"))
                .isInstanceOf(CommandLine.MissingParameterException.class)
                .hasMessageContaining("--contenders");
        assertThatThrownBy(() -> parse("--cut", "0")).hasMessage("--cut must be a number in 1..130, was 0");
    }
}
