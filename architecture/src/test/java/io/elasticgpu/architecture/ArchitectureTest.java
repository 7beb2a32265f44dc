package io.elasticgpu.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The README's module rules (README, "Modules") over the compiled classes of every module. Data flows one way:
 * {@code core} (the placement engine, JDK only) and {@code api} (what components agree on through the API server)
 * at the bottom; {@code http} (how components serve HTTP) beside them; the components ({@code simulator},
 * {@code scheduler}, {@code node}, {@code controller}) on top of those and never on each other; {@code cli} wires
 * them into the one {@code egpu} program and {@code localcluster} into a local cluster with {@code ./egpu demo};
 * {@code bench} and {@code e2e} (the benchmarks and the end-to-end tests) use everything and nothing shipped uses them.
 */
@AnalyzeClasses(
        packages = "io.elasticgpu",
        importOptions = {ImportOption.DoNotIncludeTests.class, DoNotIncludeTestJars.class})
class ArchitectureTest {

    private static final String[] COMPONENTS = {"simulator", "scheduler", "node", "controller"};

    @ArchTest
    static final ArchRule coreUsesTheJdkOnly = classes()
            .that()
            .resideInAPackage("io.elasticgpu.core..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "io.elasticgpu.core..")
            .because("the placement engine must run in the simulator, the extender and tests alike, with no "
                    + "Kubernetes type");

    @ArchTest
    static final ArchRule corePackagesFlowOneWay = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .layer("model")
            .definedBy("io.elasticgpu.core.model..")
            .layer("snapshot")
            .definedBy("io.elasticgpu.core.snapshot..")
            .layer("policy")
            .definedBy("io.elasticgpu.core.policy..")
            .layer("placement")
            .definedBy("io.elasticgpu.core.placement..")
            .whereLayer("placement")
            .mayNotBeAccessedByAnyLayer()
            .whereLayer("policy")
            .mayOnlyBeAccessedByLayers("placement")
            .whereLayer("snapshot")
            .mayOnlyBeAccessedByLayers("policy", "placement");

    @ArchTest
    static final ArchRule apiImportsNoComponent = noClasses()
            .that()
            .resideInAPackage("io.elasticgpu.api..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(inside(
                    "core",
                    "http",
                    "simulator",
                    "scheduler",
                    "node",
                    "controller",
                    "cli",
                    "localcluster",
                    "bench",
                    "e2e"))
            .because("api is the contract between components; it cannot know any of them");

    @ArchTest
    static final ArchRule httpIsPlumbingOnly = classes()
            .that()
            .resideInAPackage("io.elasticgpu.http..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(
                    "java..",
                    "javax..",
                    "com.sun.net.httpserver..",
                    "io.prometheus..",
                    "org.slf4j..",
                    "org.bouncycastle..",
                    "io.elasticgpu.http..")
            .because("every component serves HTTP through it, so it can know none of them, nor Kubernetes");

    @ArchTest
    static final ArchRule componentsDoNotUseEachOther = componentsIndependent();

    @ArchTest
    static final ArchRule shippedCodeDoesNotUseTheHarness = noClasses()
            .that()
            .resideInAnyPackage(inside(
                    "core", "api", "http", "simulator", "scheduler", "node", "controller", "cli", "localcluster"))
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(inside("e2e", "bench"))
            .because("what users run is apart from what tests and benchmarks use");

    @ArchTest
    static final ArchRule wiringProgramsAreApart = noClasses()
            .that()
            .resideInAPackage("io.elasticgpu.cli..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.elasticgpu.localcluster..")
            .orShould()
            .dependOnClassesThat()
            .resideInAPackage("io.elasticgpu.bench..")
            .because("egpu is what runs in a cluster; the local cluster and the benchmarks are programs of their own");

    @ArchTest
    static final ArchRule shippedCodeDoesNotSleep = noClasses()
            .that()
            .resideInAnyPackage(inside("core", "api", "http", "simulator", "scheduler", "node", "controller", "cli"))
            .should()
            .callMethod(Thread.class, "sleep", long.class)
            .orShould()
            .callMethod(Thread.class, "sleep", java.time.Duration.class)
            .orShould()
            .callMethod(java.util.concurrent.TimeUnit.class, "sleep", long.class)
            .because("shipped code waits on a clock or a scheduler it is given, or on what it waits for, so that tests"
                    + " control time and nothing stalls a thread for nothing");

    @ArchTest
    static final ArchRule informersAreOurs = noClasses()
            .that()
            .resideInAnyPackage(inside("api", "scheduler", "node", "controller", "cli"))
            .should()
            .callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                            com.tngtech.archunit.core.domain.properties.HasName.Predicates.name("inform"))
                    .and(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                            com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner(
                                    com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo(
                                            "io.fabric8.kubernetes.client.dsl.Informable")))))
            .because("an informer of a long-running component is made with runnableInformer and set by"
                    + " api.watch.Informers.ours before it starts: inform() starts one that gives up on a first list"
                    + " that times out and keeps every object's managedFields");

    /**
     * Each shipped component module's doors: the packages other shipped modules may use (mostly {@code cli}, which
     * wires each component's service from its configuration). The rest of a module is its rooms. The lab
     * ({@code simulator}, {@code localcluster}, {@code bench}) measures the rooms too and is not held to them.
     * docs/architecture.md ("Doors") lists the same.
     */
    static final java.util.Map<String, java.util.List<String>> DOORS = java.util.Map.of(
            "scheduler",
            java.util.List.of("io.elasticgpu.scheduler.extender"),
            "controller",
            java.util.List.of(
                    "io.elasticgpu.controller.service",
                    "io.elasticgpu.controller.view",
                    "io.elasticgpu.controller.webhook",
                    "io.elasticgpu.controller.provisioning"),
            "node",
            java.util.List.of(
                    "io.elasticgpu.node.agent",
                    "io.elasticgpu.node.discovery",
                    "io.elasticgpu.node.health",
                    "io.elasticgpu.node.isolation",
                    "io.elasticgpu.node.metrics"),
            "http",
            java.util.List.of("io.elasticgpu.http", "io.elasticgpu.http.tls"));

    @ArchTest
    static final ArchRule shippedModulesAreUsedThroughTheirDoors = doors();

    @ArchTest
    static final ArchRule noPackageCycles =
            slices().matching("io.elasticgpu.(**)").should().beFreeOfCycles();

    private static ArchRule componentsIndependent() {
        ArchRule rule = null;
        for (String component : COMPONENTS) {
            String[] others = java.util.stream.Stream.concat(
                            java.util.Arrays.stream(COMPONENTS).filter(c -> !c.equals(component)),
                            java.util.stream.Stream.of("cli", "localcluster"))
                    .toArray(String[]::new);
            ArchRule one = noClasses()
                    .that()
                    .resideInAPackage("io.elasticgpu." + component + "..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(inside(others));
            rule = rule == null
                    ? one
                    : com.tngtech.archunit.lang.CompositeArchRule.of(rule).and(one);
        }
        return rule.because("a component talks to the others only through the API server (api), never by calling them");
    }

    private static ArchRule doors() {
        String[] shipped = {"api", "core", "http", "scheduler", "node", "controller", "cli"};
        ArchRule rule = null;
        for (var e : DOORS.entrySet()) {
            String module = e.getKey();
            String[] others = java.util.Arrays.stream(shipped)
                    .filter(m -> !m.equals(module))
                    .toArray(String[]::new);
            com.tngtech.archunit.base.DescribedPredicate<com.tngtech.archunit.core.domain.JavaClass> room =
                    com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage(
                                    "io.elasticgpu." + module + "..")
                            .and(com.tngtech.archunit.base.DescribedPredicate.not(
                                    com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage(
                                            e.getValue().toArray(String[]::new))));
            ArchRule one = noClasses()
                    .that()
                    .resideInAnyPackage(inside(others))
                    .should()
                    .dependOnClassesThat(room.as("classes of %s outside its doors %s", module, e.getValue()));
            rule = rule == null
                    ? one
                    : com.tngtech.archunit.lang.CompositeArchRule.of(rule).and(one);
        }
        return rule.because("a shipped module is used through its doors; add a door to ArchitectureTest.DOORS and"
                + " docs/architecture.md only for what other modules must reach");
    }

    private static String[] inside(String... modules) {
        return java.util.Arrays.stream(modules)
                .map(m -> "io.elasticgpu." + m + "..")
                .toArray(String[]::new);
    }
}
