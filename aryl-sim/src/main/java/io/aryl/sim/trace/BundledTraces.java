package io.aryl.sim.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Small slices of the public traces shipped on the classpath ({@code src/main/resources/traces/},
 * with their licenses and a README giving source and rows kept), so that a default simulation needs
 * nothing outside the repository.
 */
public final class BundledTraces {
  /** Classpath resource: 7 days of submissions of ITP cluster04, raw layout, rows unchanged. */
  public static final String ITP_SLICE = "/traces/itp-cluster04-slice.csv";

  /**
   * Classpath resource: the 2,016 ten-minute windows (14 days) of ServeGen model m-small, rows
   * unchanged.
   */
  public static final String SERVEGEN_M_SMALL = "/traces/servegen-m-small.csv";

  /** The ServeGen model in {@link #SERVEGEN_M_SMALL}. */
  public static final String SERVEGEN_MODEL = "m-small";

  /**
   * Start of the ITP slice's submission window, seconds from the start of the full cluster04 trace
   * (day 44): the slice holds every job submitted in {@code [ITP_SLICE_START_S, ITP_SLICE_END_S)}.
   * Its jobs keep their original submission times; subtract this to start a simulation at 0.
   */
  public static final double ITP_SLICE_START_S = 3_801_600;

  /**
   * End (exclusive) of the ITP slice's submission window, {@code ITP_SLICE_START_S} + 7 days (day
   * 51).
   */
  public static final double ITP_SLICE_END_S = 4_406_400;

  private BundledTraces() {}

  /**
   * The 2,571 jobs of the ITP cluster04 slice, sorted by {@code (submitS, id)}, with original
   * submission times.
   */
  public static List<TraceJob> itpSlice() {
    try (InputStream in = open(ITP_SLICE)) {
      return ItpTrace.read(in, ITP_SLICE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read bundled trace " + ITP_SLICE + ": " + e, e);
    }
  }

  /**
   * The request-rate curve of ServeGen m-small: 2,016 windows of 600 s, time 0 at local midnight.
   * The source has 37 windows with rate 0 and no active client (days 7 to 13, gaps in the released
   * data rather than idle periods); they are kept as they are.
   */
  public static InferenceCurve servegenMSmall() {
    try (InputStream in = open(SERVEGEN_M_SMALL)) {
      return ServeGenTrace.read(in, SERVEGEN_M_SMALL, SERVEGEN_MODEL);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read bundled trace " + SERVEGEN_M_SMALL + ": " + e, e);
    }
  }

  private static InputStream open(String resource) {
    InputStream in = BundledTraces.class.getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalStateException("bundled trace " + resource + " is not on the classpath");
    }
    return in;
  }
}
