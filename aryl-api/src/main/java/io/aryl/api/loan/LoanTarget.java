package io.aryl.api.loan;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.aryl.api.body.BadRequestException;
import io.aryl.api.body.JsonObjectBody;
import java.io.InputStream;
import java.time.Instant;
import java.util.Set;

/**
 * The body of {@code PUT /ws/v1/cluster/aryl/loan-target}: the loan controller's leader says how
 * many inference nodes may be on loan now, and by when the ones above that must be back. The
 * scheduler, the one writer of which node is whose, stores it before it answers ({@link
 * LoanTargetAccepted}), then lends idle inference nodes up to it and reclaims, least cost first,
 * what is above it. A target of an older epoch than the one in force is refused ({@code 409},
 * {@link StaleTarget}): its sender was deposed.
 *
 * @param epoch the sender's leader epoch (its ZooKeeper fencing epoch), at least 1
 * @param controller the sender's instance name
 * @param maxOnLoan how many inference nodes may be on loan (lent or being lent), 0 to {@link
 *     #MAX_ON_LOAN}
 * @param returnByMs by when the nodes above the target must be back, epoch ms; 0 for the
 *     scheduler's default deadline
 * @param decidedMs when the controller decided it, epoch ms
 * @param reason the controller's reason, in words
 * @param demand the inference demand the target was decided on; null when the sender does not say
 *     (an older controller), absent from the JSON then
 */
public record LoanTarget(
    long epoch,
    String controller,
    int maxOnLoan,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) long returnByMs,
    long decidedMs,
    String reason,
    @JsonInclude(JsonInclude.Include.NON_NULL) LoanDemand demand) {
  /** Largest body, in bytes. */
  public static final int MAX_BYTES = 8 * 1024;

  /** Most inference nodes a target may allow on loan. */
  public static final int MAX_ON_LOAN = 100_000;

  /** Longest controller instance name. */
  public static final int MAX_CONTROLLER_CHARS = 256;

  /** Longest reason. */
  public static final int MAX_REASON_CHARS = 1024;

  /** How far a deadline may lie in the past (due at once) or in the future. */
  public static final long RETURN_BY_PAST_MS = 3_600_000L;

  public static final long RETURN_BY_FUTURE_MS = 7 * 24 * 3_600_000L;

  /** The fields there are. */
  public static final Set<String> FIELDS =
      Set.of("epoch", "controller", "maxOnLoan", "returnByMs", "decidedMs", "reason", "demand");

  static final String EXAMPLE =
      "{\"epoch\": 3, \"controller\": \"controller-1\", \"maxOnLoan\": 2}";

  public LoanTarget {
    reason = reason == null ? "" : reason;
  }

  /** A target that does not say what demand it was decided on. */
  public LoanTarget(
      long epoch,
      String controller,
      int maxOnLoan,
      long returnByMs,
      long decidedMs,
      String reason) {
    this(epoch, controller, maxOnLoan, returnByMs, decidedMs, reason, null);
  }

  /**
   * The target in {@code body}, checked against {@code nowMs}: one JSON object of at most {@link
   * #MAX_BYTES} bytes with only {@link #FIELDS}, each once; {@code epoch} an integer >= 1, {@code
   * controller} printable text of 1-256 characters, {@code maxOnLoan} an integer in [0, {@link
   * #MAX_ON_LOAN}], {@code returnByMs} 0 or epoch milliseconds from an hour before to 7 days after
   * now, {@code decidedMs} epoch milliseconds (0 if missing), {@code reason} printable text of at
   * most 1024 characters, {@code demand} absent or as {@link LoanDemand#parse} takes it.
   *
   * @throws BadRequestException naming the field and the value
   */
  public static LoanTarget parse(InputStream body, long nowMs) throws BadRequestException {
    JsonObjectBody req = JsonObjectBody.read(body, MAX_BYTES, EXAMPLE).onlyFields(FIELDS);
    long epoch = req.integer("epoch", 1, Long.MAX_VALUE, true, 0);
    String controller = req.text("controller", MAX_CONTROLLER_CHARS);
    int maxOnLoan = (int) req.integer("maxOnLoan", 0, MAX_ON_LOAN, true, 0);
    long returnByMs = req.integer("returnByMs", 0, Long.MAX_VALUE, false, 0);
    if (returnByMs != 0
        && (returnByMs < nowMs - RETURN_BY_PAST_MS || returnByMs > nowMs + RETURN_BY_FUTURE_MS)) {
      throw new BadRequestException(
          "returnByMs must be epoch milliseconds within an hour before and 7 days after now"
              + " ("
              + nowMs
              + "), or 0 for the default deadline, was "
              + returnByMs
              + " ("
              + Instant.ofEpochMilli(returnByMs)
              + ")");
    }
    long decidedMs = req.integer("decidedMs", 0, Long.MAX_VALUE, false, 0);
    String reason = req.optionalText("reason", MAX_REASON_CHARS);
    JsonNode d = req.node().get("demand");
    LoanDemand demand = d == null || d.isNull() ? null : LoanDemand.parse(d);
    return new LoanTarget(epoch, controller, maxOnLoan, returnByMs, decidedMs, reason, demand);
  }
}
