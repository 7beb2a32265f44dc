package io.elasticgpu.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Map;

/**
 * The glossary of docs/architecture.md holds in main code: one word per idea, so no class (nested ones included) keeps
 * a name the glossary retired, and the classes named after the CRD kinds spell {@code ElasticGPU} as the kinds do.
 */
@AnalyzeClasses(
        packages = "io.elasticgpu",
        importOptions = {ImportOption.DoNotIncludeTests.class, DoNotIncludeTestJars.class})
class GlossaryTest {

    /** A retired name → the glossary's word for it. */
    static final Map<String, String> RETIRED = Map.ofEntries(
            Map.entry("Request", "Ask"),
            Map.entry("PodGpuRequests", "PodAsks"),
            Map.entry("InvalidGpuRequestException", "InvalidAskException"),
            Map.entry("Placement", "Grant"),
            Map.entry("Allocation", "PodGrant"),
            Map.entry("Assignment", "PodFit"),
            Map.entry("Assigned", "PodFit.Fits"),
            Map.entry("Contribution", "PodHolding"),
            Map.entry("Handout", "Answer"));

    @ArchTest
    static final ArchRule noClassKeepsARetiredName = noClasses()
            .should(new ArchCondition<JavaClass>("have a name the glossary retired " + RETIRED.keySet()) {
                @Override
                public void check(JavaClass c, ConditionEvents events) {
                    String word = RETIRED.get(c.getSimpleName());
                    if (word != null) {
                        events.add(SimpleConditionEvent.satisfied(
                                c,
                                "%s keeps the retired name %s; the glossary's word is %s"
                                        .formatted(c.getName(), c.getSimpleName(), word)));
                    }
                }
            })
            .because("docs/architecture.md's glossary gives one word per idea");

    @ArchTest
    static final ArchRule elasticGpuIsSpelledAsTheKinds = noClasses()
            .should()
            .haveSimpleNameStartingWith("ElasticGpu")
            .because("the CRD kinds are ElasticGPU, ElasticGPUClaim and ElasticGPUClass, and classes named after them"
                    + " spell it the same way");
}
