package org.paimon_sql.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * {@code spark.sql.extensions=org.paimon_sql.spark.PaimonSparkSessionExtensions}: installs
 * {@link PaimonSqlParser} (unquoted {@code t$files}, {@code CALL sys.x} without {@code USE}) and
 * {@link NotNullColumnCheck} (a NULL written into a NOT NULL column names the table and column).
 */
public class PaimonSparkSessionExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser(PaimonSqlParser::new);
    extensions.injectPostHocResolutionRule(session -> new NotNullColumnCheck());
    return BoxedUnit.UNIT;
  }
}
