package io.elasticgpu.bench.arena;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class ArenaReportTest {

    @TempDir
    Path dir;

    private static Standing standing(String name, double pct, double podsPerSecond, int over) {
        return new Standing(
                name,
                "openb_pod_list_default",
                pct,
                900,
                100,
                podsPerSecond,
                0.5,
                2.0,
                over,
                0,
                12.5,
                300,
                true,
                40,
                java.util.Map.of("1x500", 100),
                List.of(new Standing.Point(0, 0), new Standing.Point(50, 50), new Standing.Point(100, pct)));
    }

    @Test
    void ratiosAreAgainstTheDefaultPolicyWhenItRan() {
        String table = ArenaReport.table(List.of(
                standing("elastic", 95, 20, 0),
                standing(io.elasticgpu.core.policy.Policies.DEFAULT, 96, 20, 0),
                standing("no-sharing", 80, 40, 0)));

        assertThat(table).contains("ratios against " + io.elasticgpu.core.policy.Policies.DEFAULT);
        assertThat(table.lines().filter(l -> l.startsWith("no-sharing")))
                .singleElement()
                .asString()
                .contains("0.833x");
    }

    @Test
    void theTableGivesRatiosAgainstElasticWhereverItIsListed() {
        String table =
                ArenaReport.table(List.of(standing("hami-binpack-spread", 80, 10, 0), standing("elastic", 95, 20, 0)));
        assertThat(table).contains("ratios against elastic");
        assertThat(table.lines()
                        .filter(l -> l.startsWith("hami-binpack-spread"))
                        .findFirst()
                        .orElseThrow())
                .contains("80.00%")
                .contains("0.842x")
                .contains("0.50x");
        assertThat(table.lines()
                        .filter(l -> l.startsWith("elastic"))
                        .findFirst()
                        .orElseThrow())
                .contains("1.000x");
    }

    @Test
    void theChartIsWellFormedSvgWithOneLegendPerContender() throws Exception {
        Path file = dir.resolve("arena.svg");
        ArenaReport.chart(file, List.of(standing("elastic", 95, 20, 0), standing("a<b", 80, 10, 0)));
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
        assertThat(doc.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(Files.readString(file)).contains("elastic 95.00").contains("a&lt;b 80.00");
    }

    @Test
    void theCurveTableReadsEachContenderAtTenPercentSteps() {
        Standing full = standing("elastic", 95, 20, 0);
        List<Standing.Point> points = new java.util.ArrayList<>();
        for (int level = 0; level <= 100; level++) {
            points.add(new Standing.Point(level, level * 0.9));
        }
        String table = ArenaReport.curveTable(List.of(
                new Standing(
                        full.name(), full.trace(), 90, 1, 0, 1, 0, 0, 0, 0, 0, 0, true, 0, java.util.Map.of(), points),
                standing("short", 80, 10, 0)));
        assertThat(table.lines().toList().get(1).split("\\s+"))
                .containsExactly("elastic", "45.00%", "54.00%", "63.00%", "72.00%", "81.00%", "90.00%");
        // Between its points a curve holds the next point's value: 50 % at 50, 80 % from there to 100.
        assertThat(table.lines().toList().get(2).split("\\s+"))
                .containsExactly("short", "50.00%", "80.00%", "80.00%", "80.00%", "80.00%", "80.00%");
        assertThat(table.lines().toList().getFirst()).endsWith("cut");
    }

    @Test
    void theCurveIsReadAtEachWholePercentOfArrival() {
        double[] levels = ArenaReport.levels(List.of(
                new Standing.Point(0, 0),
                new Standing.Point(1.5, 1.5),
                new Standing.Point(2.2, 2.0),
                new Standing.Point(3.0, 2.5),
                new Standing.Point(3.4, 2.6)));
        // Level 1 is first reached at 1.5 %, level 2 at 2.2 %, level 3 at 3.0 %; the last point is past level 3.
        assertThat(levels).containsExactly(0, 1.5, 2.0, 2.5);
    }
}
