import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * CI's last word on the tests (run as {@code java .ci/TestReport.java [ROOT]} after the builds): prints the tests
 * executed per module from the surefire and failsafe reports, and fails when a module that has test classes ran
 * none, a test class the build should run has no report (a naming or include mistake hides it), a test was
 * skipped, or a jqwik property ran no tries. A green build then means every named suite really ran.
 */
public final class TestReport {

    private static final Pattern ATTR = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    private static final Pattern TRIES = Pattern.compile("tries\\s*=\\s*(\\d+)");
    private static final Pattern RUN_BY_SUREFIRE = Pattern.compile(".*(Test|IT|Properties)\\.java");
    private static final Pattern RUN_BY_FAILSAFE = Pattern.compile(".*E2E\\.java");

    record Suite(String module, String name, int tests, int skipped, String body) {
    }

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        List<String> problems = new ArrayList<>();
        Map<String, int[]> perModule = new TreeMap<>();
        for (Path module : modules(root)) {
            String name = module.getFileName().toString();
            List<Suite> suites = suites(module, name);
            int tests = suites.stream().mapToInt(Suite::tests).sum();
            perModule.put(name, new int[] {suites.size(), tests});
            List<String> expected = testClasses(module);
            if (!expected.isEmpty() && tests == 0) {
                problems.add(name + ": has " + expected.size() + " test classes but ran no test");
            }
            for (String cls : expected) {
                if (suites.stream().noneMatch(s -> s.name().equals(cls) || s.name().startsWith(cls + "$"))) {
                    problems.add(name + ": " + cls + " has no test report: it never ran");
                }
            }
            for (Suite s : suites) {
                if (s.skipped() > 0) {
                    problems.add(name + ": " + s.name() + " skipped " + s.skipped() + " test(s); in CI a test runs "
                            + "or fails");
                }
                if (s.tests() == 0) {
                    problems.add(name + ": " + s.name() + " ran no test");
                }
                checkTries(s, problems);
            }
        }
        System.out.println("tests executed per module (classes, tests):");
        perModule.forEach((m, c) -> System.out.printf("  %-14s %4d %6d%n", m, c[0], c[1]));
        System.out.printf("  %-14s %4d %6d%n", "total", perModule.values().stream().mapToInt(c -> c[0]).sum(),
                perModule.values().stream().mapToInt(c -> c[1]).sum());
        if (!problems.isEmpty()) {
            problems.forEach(p -> System.out.println("FAIL " + p));
            System.exit(1);
        }
    }

    /** Every jqwik property reports its tries; a property that tried nothing proved nothing. */
    private static void checkTries(Suite s, List<String> problems) {
        if (!s.body().contains("tries")) {
            return;
        }
        Matcher m = TRIES.matcher(s.body());
        while (m.find()) {
            if (Integer.parseInt(m.group(1)) == 0) {
                problems.add(s.module() + ": a property of " + s.name() + " ran 0 tries");
            }
        }
    }

    private static List<Path> modules(Path root) throws IOException {
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml"))).sorted().toList();
        }
    }

    private static List<Suite> suites(Path module, String name) throws IOException {
        List<Suite> out = new ArrayList<>();
        for (String dir : List.of("target/surefire-reports", "target/failsafe-reports")) {
            Path reports = module.resolve(dir);
            if (!Files.isDirectory(reports)) {
                continue;
            }
            try (Stream<Path> files = Files.list(reports)) {
                for (Path f : files.filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml")).toList()) {
                    out.add(suite(name, Files.readString(f)));
                }
            }
        }
        return out;
    }

    private static Suite suite(String module, String xml) {
        int start = xml.indexOf("<testsuite ");
        String head = xml.substring(start, xml.indexOf('>', start));
        Map<String, String> attrs = new TreeMap<>();
        Matcher m = ATTR.matcher(head);
        while (m.find()) {
            attrs.put(m.group(1), m.group(2));
        }
        return new Suite(module, attrs.getOrDefault("name", "?"), Integer.parseInt(attrs.getOrDefault("tests", "0")),
                Integer.parseInt(attrs.getOrDefault("skipped", "0")), xml);
    }

    /** The test classes the build is configured to run (surefire's includes; failsafe's in the e2e module). */
    private static List<String> testClasses(Path module) throws IOException {
        Path src = module.resolve("src/test/java");
        if (!Files.isDirectory(src)) {
            return List.of();
        }
        boolean e2eRan = Files.isDirectory(module.resolve("target/failsafe-reports"));
        try (Stream<Path> files = Files.walk(src)) {
            return files.filter(f -> {
                String n = f.getFileName().toString();
                return RUN_BY_SUREFIRE.matcher(n).matches() || e2eRan && RUN_BY_FAILSAFE.matcher(n).matches();
            }).filter(TestReport::isTestClass).map(f -> src.relativize(f).toString().replace('/', '.')
                    .replaceAll("\\.java$", "")).sorted().toList();
        }
    }

    /** Abstract bases and helpers named like tests hold no @Test or @Property of their own. */
    private static boolean isTestClass(Path file) {
        try {
            String s = Files.readString(file);
            return !s.contains("abstract class") && (s.contains("@Test") || s.contains("@Property")
                    || s.contains("@ParameterizedTest") || s.contains("@Example") || s.contains("@RepeatedTest"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
