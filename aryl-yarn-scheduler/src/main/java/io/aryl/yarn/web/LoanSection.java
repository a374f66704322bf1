package io.aryl.yarn.web;

import static io.aryl.yarn.web.Html.esc;

import io.aryl.api.status.LoanTargetStatus;

/**
 * The page's {@code #loan} section: the loan controller's target in force beside the inference
 * demand it was decided on, so that an operator sees at once why that many nodes are lent
 * ("inference demand: 120.0 req/s (forecast 150.0, 4.8 s ahead), needs 2 servers; 1 lent, target
 * 2"), then who set the target, its deadline and reason. The demand line is the status's own
 * wording ({@link LoanTargetStatus#demandSummary}), the one {@code aryl-admin status} prints.
 *
 * @param target the status's {@code loanTarget}; null before a controller set one
 */
record LoanSection(LoanTargetStatus target) {

  void appendTo(StringBuilder h) {
    h.append("<section id=\"loan\"><h2>Loan target</h2>\n");
    if (target == null) {
      h.append(
          "<p class=\"none\" id=\"inference-demand\">no loan target: no loan controller has set"
              + " one, nothing is lent or asked back on its account</p>\n");
      return;
    }
    String demand = target.demandSummary();
    h.append("<p id=\"inference-demand\"")
        .append(demand == null ? " class=\"none\">" : ">")
        .append(
            esc(
                demand != null
                    ? demand
                    : "inference demand: not sent with the target; "
                        + target.onLoan()
                        + " lent, target "
                        + target.maxOnLoan()))
        .append("</p>\n");
    h.append("<dl class=\"target\"><dt>set by</dt><dd>")
        .append(esc(target.controller()))
        .append(" (epoch ")
        .append(target.epoch())
        .append(")</dd><dt>decided</dt><dd>")
        .append(Html.time(target.decidedMs()))
        .append("</dd><dt>back by</dt><dd>")
        .append(
            target.returnByMs() == 0
                ? "the scheduler's default deadline"
                : Html.time(target.returnByMs()))
        .append("</dd><dt>reason</dt><dd class=\"reason\">")
        .append(esc(target.reason()))
        .append("</dd></dl></section>\n");
  }
}
