package io.elasticgpu.simulator.bound;

import static org.assertj.core.api.Assertions.assertThat;

import io.elasticgpu.core.model.Ask;
import io.elasticgpu.core.model.Card;
import io.elasticgpu.core.model.Node;
import io.elasticgpu.core.policy.PolicyName;
import io.elasticgpu.simulator.replay.EventLog;
import io.elasticgpu.simulator.replay.Experiment;
import io.elasticgpu.simulator.trace.Trace;
import io.elasticgpu.simulator.trace.TracePod;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/** On random small clusters and pods: no feasible packing, offline or by any policy, holds more than the bound. */
class CeilingPropertyTest {

    private static final int[] SLICES = {100, 250, 300, 450, 500, 600, 750};
    private static final String[] MODELS = {"T4", "V100M16"};

    private static Trace trace(long seed) {
        Random random = new Random(seed);
        List<Node> nodes = new ArrayList<>();
        int count = 1 + random.nextInt(5);
        for (int n = 0; n < count; n++) {
            int cards = 1 + random.nextInt(4);
            String model = MODELS[random.nextInt(MODELS.length)];
            String name = "node-" + n;
            List<Card> list = new ArrayList<>();
            for (int c = 0; c < cards; c++) {
                list.add(Card.of(c, name + "/" + c, model, 16_384));
            }
            nodes.add(Node.of(name, 4_000L * (1 + random.nextInt(6)), 32_768, 110, list));
        }
        List<TracePod> pods = new ArrayList<>();
        int podCount = 5 + random.nextInt(30);
        for (int p = 0; p < podCount; p++) {
            long cpu = 500L * random.nextInt(8);
            long memory = 1_024L * random.nextInt(8);
            Ask ask = switch (random.nextInt(4)) {
                case 0 -> Ask.wholeCards(cpu, memory, 1 + random.nextInt(3));
                case 1 -> Ask.cpuOnly(cpu, memory);
                default -> Ask.computeSlice(cpu, memory, SLICES[random.nextInt(SLICES.length)]);
            };
            if (random.nextInt(5) == 0 && ask.needsCards()) {
                ask = ask.withModels(List.of(MODELS[random.nextInt(MODELS.length)]));
            }
            pods.add(new TracePod("pod-" + p, ask));
        }
        return new Trace("random-" + seed, nodes, pods);
    }

    @Property(tries = 60)
    void noPackingHoldsMoreThanTheBound(@ForAll @LongRange(min = 0, max = 1_000_000) long seed) {
        Trace trace = trace(seed);
        Experiment experiment = new Experiment(trace, 1.5);
        List<TracePod> order = experiment.order(seed).arrivals();
        List<Ask> asks = order.stream().map(TracePod::ask).toList();
        double bound = AllocationBound.upperMilli(trace.nodes(), asks);
        double slack = 1e-6 * Math.max(1, bound);

        Packing offline = OfflinePacker.pack(trace.nodes(), asks);
        assertThat(PackingCheck.problems(trace.nodes(), asks, offline)).isEmpty();
        assertThat((double) offline.usedMilli()).isLessThanOrEqualTo(bound + slack);
        Packing guided = OfflinePacker.pack(trace.nodes(), asks, AllocationBound.solve(trace.nodes(), asks));
        assertThat(PackingCheck.problems(trace.nodes(), asks, guided)).isEmpty();
        assertThat((double) guided.usedMilli()).isLessThanOrEqualTo(bound + slack);
        AllocationBound.Solution few =
                AllocationBound.solveForRounding(trace.nodes(), asks, AllocationBound.solve(trace.nodes(), asks));
        assertThat(few.boundMilli()).isLessThanOrEqualTo(bound + slack);
        for (AllocationBound.Solution solution : List.of(AllocationBound.solve(trace.nodes(), asks), few)) {
            Packing rounded = RoundingPacker.pack(trace.nodes(), asks, solution);
            assertThat(PackingCheck.problems(trace.nodes(), asks, rounded)).isEmpty();
            assertThat((double) rounded.usedMilli()).isLessThanOrEqualTo(few.boundMilli() + slack);
        }

        for (PolicyName policy : PolicyName.values()) {
            EventLog log = experiment.runOne(policy.text(), seed).log();
            // a trace whose pods ask no cards logs no event, and then nothing is used
            double used = log.size() == 0 ? 0 : log.used(log.size() - 1);
            assertThat(used).as("%s on %s", policy.text(), trace.name()).isLessThanOrEqualTo(bound + slack);
        }
    }
}
