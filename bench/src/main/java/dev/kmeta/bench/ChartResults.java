package dev.kmeta.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Turns the JMH JSON of the side-by-side apply benchmarks into PNG charts: P3 ({@code ApplySmallChange.apply}) and
 * P4 ({@code ApplyFullResponse.apply}), time and bytes per operation across cluster sizes, one bar per
 * implementation and name style, on a log scale.
 *
 * <pre>{@code
 * java -cp bench/target/benchmarks.jar dev.kmeta.bench.ChartResults bench/results docs/img
 * }</pre>
 * Reads {@code apply-small-change.json} and {@code apply-full-response.json} from the first directory, writes
 * {@code p3-apply-small-change.png} and {@code p4-apply-full-response.png} into the second.
 *
 * <p>Not thread-safe; a program.
 */
public final class ChartResults {
    private ChartResults() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ChartResults <results directory> <image directory>");
        }
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]);
        Files.createDirectories(out);
        chart(in.resolve("apply-small-change.json"), "ApplySmallChange.apply",
                "P3: one changed topic (100 partitions) into a state of N partitions", out.resolve(
                        "p3-apply-small-change.png"));
        chart(in.resolve("apply-full-response.json"), "ApplyFullResponse.apply",
                "P4: a full response of N partitions into fresh metadata", out.resolve("p4-apply-full-response.png"));
    }

    /** One result row: its parameters, the time score (µs/op) and bytes per operation. */
    record Row(Map<String, Object> params, double micros, double bytes) {
    }

    static List<Row> rows(Path json, String benchmarkSuffix) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (Object o : (List<?>) Json.parse(Files.readString(json))) {
            Map<?, ?> r = (Map<?, ?>) o;
            if (!((String) r.get("benchmark")).endsWith(benchmarkSuffix)) {
                continue;
            }
            Map<?, ?> primary = (Map<?, ?>) r.get("primaryMetric");
            double score = ((Number) primary.get("score")).doubleValue();
            String unit = (String) primary.get("scoreUnit");
            double micros = switch (unit) {
                case "us/op" -> score;
                case "ms/op" -> score * 1_000;
                case "ns/op" -> score / 1_000;
                default -> throw new IllegalArgumentException(json + ": unit " + unit);
            };
            Map<?, ?> secondary = (Map<?, ?>) r.get("secondaryMetrics");
            Map<?, ?> norm = secondary == null ? null : (Map<?, ?>) secondary.get("gc.alloc.rate.norm");
            double bytes = norm == null ? Double.NaN : ((Number) norm.get("score")).doubleValue();
            @SuppressWarnings("unchecked")
            Map<String, Object> params = (Map<String, Object>) r.get("params");
            rows.add(new Row(params, micros, bytes));
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException(json + " has no " + benchmarkSuffix + " result");
        }
        return rows;
    }

    static void chart(Path json, String benchmark, String title, Path png) throws IOException {
        List<Row> rows = rows(json, benchmark);
        TreeSet<Integer> sizes = new TreeSet<>();
        Map<String, Map<Integer, Row>> series = new LinkedHashMap<>();
        for (Row r : rows) {
            int partitions = Integer.parseInt((String) r.params().get("partitions"));
            sizes.add(partitions);
            Object names = r.params().get("names");
            String name = r.params().get("impl") + (names == null ? "" : ", " + names + " names");
            series.computeIfAbsent(name, k -> new LinkedHashMap<>()).put(partitions, r);
        }
        List<String> x = new ArrayList<>();
        for (int s : sizes) {
            x.add(String.format(Locale.ROOT, "%,d partitions", s));
        }
        CategoryChart time = base(title + " - time per operation", "time per operation (µs, log scale)");
        CategoryChart bytes = base(title + " - bytes allocated per operation", "bytes per operation (log scale)");
        for (Map.Entry<String, Map<Integer, Row>> e : series.entrySet()) {
            List<Double> t = new ArrayList<>();
            List<Double> b = new ArrayList<>();
            for (int s : sizes) {
                Row r = e.getValue().get(s);
                t.add(r == null ? Double.NaN : r.micros());
                b.add(r == null ? Double.NaN : r.bytes());
            }
            time.addSeries(e.getKey(), x, t);
            bytes.addSeries(e.getKey(), x, b);
        }
        // Bars start at the axis minimum: on a log axis that must be a positive power of ten below every value.
        time.getStyler().setYAxisMin(floorPow10(rows.stream().mapToDouble(Row::micros).min().orElse(1)));
        bytes.getStyler().setYAxisDecimalPattern("#,###");
        bytes.getStyler().setYAxisMin(floorPow10(rows.stream().mapToDouble(Row::bytes).filter(d -> d > 0).min()
                .orElse(1)));
        String base = png.toString().replaceAll("\\.png$", "");
        BitmapEncoder.saveBitmap(List.of(time, bytes), 2, 1, base, BitmapEncoder.BitmapFormat.PNG);
        System.out.println("wrote " + base + ".png (" + rows.size() + " results from " + json + ")");
    }

    private static double floorPow10(double v) {
        return Math.pow(10, Math.floor(Math.log10(v)));
    }

    private static CategoryChart base(String title, String yTitle) {
        CategoryChart c = new CategoryChartBuilder().width(900).height(420).title(title).yAxisTitle(yTitle).build();
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        c.getStyler().setLabelsVisible(true);
        c.getStyler().setYAxisDecimalPattern("#,###.#");
        return c;
    }

    /** A small JSON reader (objects, arrays, strings, numbers, booleans, null): enough for JMH's result files. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json j = new Json(text);
            Object v = j.value();
            j.skip();
            if (j.i != text.length()) {
                throw j.error("trailing text");
            }
            return v;
        }

        private Object value() {
            skip();
            if (i >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        private Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            skip();
            if (s.charAt(i) == '}') {
                i++;
                return m;
            }
            for (;;) {
                skip();
                String key = string();
                skip();
                expect(':');
                m.put(key, value());
                skip();
                if (s.charAt(i) == ',') {
                    i++;
                } else {
                    expect('}');
                    return m;
                }
            }
        }

        private List<Object> array() {
            List<Object> a = new ArrayList<>();
            i++;
            skip();
            if (s.charAt(i) == ']') {
                i++;
                return a;
            }
            for (;;) {
                a.add(value());
                skip();
                if (s.charAt(i) == ',') {
                    i++;
                } else {
                    expect(']');
                    return a;
                }
            }
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            for (;;) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'r' -> b.append('\r');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'u' -> {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
        }

        private Object number() {
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                // JMH writes "NaN" (quoted) for missing values; a bare word is an error.
                throw error("unexpected character '" + s.charAt(i) + "'");
            }
            return Double.parseDouble(s.substring(start, i));
        }

        private Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) {
                throw error("expected " + word);
            }
            i += word.length();
            return v;
        }

        private void expect(char c) {
            if (i >= s.length() || s.charAt(i) != c) {
                throw error("expected '" + c + "'");
            }
            i++;
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("JSON: " + what + " at offset " + i);
        }
    }
}
