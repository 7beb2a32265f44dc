package io.elasticgpu.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The policy names: one closed set, read in one place, with one message for a name outside it. */
class PolicyNameTest {

    private static final String KNOWN = "elastic, binpack, spread, random, dot-product, gpu-clustering, gpu-packing,"
            + " best-fit, fgd, elastic-lookahead";

    @ParameterizedTest(name = "{0} is read back from its own name and builds the policy of that name")
    @EnumSource(PolicyName.class)
    void everyNameIsReadBackAndBuildsItsPolicy(PolicyName policy) {
        var workload = TypicalWorkload.of(
                List.of(new TypicalWorkload.Typical(io.elasticgpu.core.model.Ask.cpuOnly(1, 1), 1.0)));

        assertThat(PolicyName.parse(policy.text())).isSameAs(policy);
        assertThat(policy).hasToString(policy.text());
        assertThat(Policies.create(policy, PolicyContext.of(RandomGenerator.of("L64X128MixRandom"), workload))
                        .name())
                .isEqualTo(policy.text());
    }

    @Test
    void theSetIsTheTenNamesWithTheLookaheadTheDefaultAndThePapersSix() {
        assertThat(String.join(", ", PolicyName.texts())).isEqualTo(KNOWN);
        assertThat(PolicyName.DEFAULT).isEqualTo(PolicyName.ELASTIC_LOOKAHEAD);
        assertThat(Policies.DEFAULT).isEqualTo(PolicyName.DEFAULT.text());
        assertThat(PolicyName.PAPER)
                .extracting(PolicyName::text)
                .containsExactly("random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd");
        assertThat(PolicyName.values())
                .filteredOn(PolicyName::needsWorkload)
                .containsExactly(PolicyName.ELASTIC, PolicyName.FGD, PolicyName.ELASTIC_LOOKAHEAD);
    }

    @ParameterizedTest(name = "\"{0}\" is refused")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '\'',
            value = {
                "tetris      | unknown policy \"tetris\"; choose one of: " + KNOWN,
                // names are exact: no other case, no blanks, no groups where one policy is asked
                "Binpack     | unknown policy \"Binpack\"; choose one of: " + KNOWN,
                "' binpack'  | unknown policy \" binpack\"; choose one of: " + KNOWN,
                "paper       | unknown policy \"paper\"; choose one of: " + KNOWN,
                "''          | unknown policy \"\"; choose one of: " + KNOWN,
            })
    void anUnknownNameIsRefusedNamingTheKnownOnes(String name, String message) {
        assertThatThrownBy(() -> PolicyName.parse(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @ParameterizedTest(name = "--policy {0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '\'',
            value = {
                "binpack                | binpack",
                "' fgd , binpack,fgd '  | fgd,binpack",
                "paper                  | random,dot-product,gpu-clustering,gpu-packing,best-fit,fgd",
                // all: the paper's six first, then the rest in declaration order
                "all                    | "
                        + "random,dot-product,gpu-clustering,gpu-packing,best-fit,fgd,elastic,binpack,spread,"
                        + "elastic-lookahead",
                "spread,paper           | spread,random,dot-product,gpu-clustering,gpu-packing,best-fit,fgd",
            })
    void aListExpandsItsGroupsAndNamesEachPolicyOnce(String text, String expected) {
        assertThat(PolicyName.parseList(text, "--policy"))
                .extracting(PolicyName::text)
                .containsExactly(expected.split(","));
    }

    @Test
    void anUnknownNameInAListIsRefusedNamingTheOptionTheKnownOnesAndTheGroups() {
        assertThatThrownBy(() -> PolicyName.parseList("fgd,tetris", "--policy"))
                .hasMessage("unknown policy \"tetris\" in --policy; choose from " + KNOWN + ", paper or all");
        assertThatThrownBy(() -> PolicyName.parseList("fgd,,binpack", "--policy"))
                .hasMessage("unknown policy \"\" in --policy; choose from " + KNOWN + ", paper or all");
    }
}
