package io.elasticgpu.scheduler.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Budget violations counted as kube-scheduler's default preemption counts them. */
class DisruptionBudgetsTest {

    private static Pod pod(String name, Map<String, String> labels) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build();
    }

    private static PodDisruptionBudget budget(LabelSelector selector, int allowed, String... disrupted) {
        PodDisruptionBudgetBuilder b = new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withNamespace("ns")
                .withName("b")
                .endMetadata()
                .withNewSpec()
                .withSelector(selector)
                .endSpec()
                .withNewStatus()
                .withDisruptionsAllowed(allowed)
                .endStatus();
        for (String d : disrupted) {
            b.editStatus().addToDisruptedPods(d, "2026-01-01T00:00:00Z").endStatus();
        }
        return b.build();
    }

    private static LabelSelector app(String value) {
        return new LabelSelectorBuilder().addToMatchLabels("app", value).build();
    }

    static Stream<Arguments> cases() {
        Pod a = pod("a", Map.of("app", "db"));
        Pod b = pod("b", Map.of("app", "db"));
        Pod c = pod("c", Map.of("app", "web"));
        return Stream.of(
                // one disruption allowed: the first of two matching pods spends it, the second violates
                Arguments.of("allowed 1, two matching", budget(app("db"), 1), List.of(a, b), 1),
                Arguments.of("allowed 2, two matching", budget(app("db"), 2), List.of(a, b), 0),
                Arguments.of("allowed 0, one not matching", budget(app("db"), 0), List.of(c), 0),
                // a pod the budget already counts as disrupted spends nothing
                Arguments.of("allowed 0, already disrupted", budget(app("db"), 0, "a"), List.of(a, b), 1),
                // an empty selector matches nothing
                Arguments.of("empty selector", budget(new LabelSelector(), 0), List.of(a, c), 0),
                Arguments.of(
                        "In",
                        budget(
                                new LabelSelectorBuilder()
                                        .addNewMatchExpression()
                                        .withKey("app")
                                        .withOperator("In")
                                        .withValues("db", "web")
                                        .endMatchExpression()
                                        .build(),
                                0),
                        List.of(a, c),
                        2),
                Arguments.of(
                        "NotIn",
                        budget(
                                new LabelSelectorBuilder()
                                        .addNewMatchExpression()
                                        .withKey("app")
                                        .withOperator("NotIn")
                                        .withValues("db")
                                        .endMatchExpression()
                                        .build(),
                                0),
                        List.of(a, c),
                        1),
                // In without values cannot be read: the budget matches nothing
                Arguments.of(
                        "In without values",
                        budget(
                                new LabelSelectorBuilder()
                                        .addNewMatchExpression()
                                        .withKey("app")
                                        .withOperator("In")
                                        .endMatchExpression()
                                        .build(),
                                0),
                        List.of(a),
                        0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void violationsAreCountedInTheOrderGiven(String name, PodDisruptionBudget budget, List<Pod> victims, int expected) {
        assertThat(DisruptionBudgets.of(List.of(budget)).violations(victims)).isEqualTo(expected);
    }

    @Test
    void aPodWithoutLabelsOrInAnotherNamespaceViolatesNothing() {
        DisruptionBudgets budgets = DisruptionBudgets.of(List.of(budget(app("db"), 0)));
        assertThat(budgets.protects(pod("bare", Map.of()))).isFalse();
        Pod other = new PodBuilder(pod("o", Map.of("app", "db")))
                .editMetadata()
                .withNamespace("other")
                .endMetadata()
                .build();
        assertThat(budgets.protects(other)).isFalse();
        assertThat(budgets.protects(pod("db", Map.of("app", "db")))).isTrue();
    }
}
