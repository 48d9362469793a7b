// Scores a dense 2-way epistasis panel (densePairScores.h) from the GEMM's tallies: per pair pairScoring.h's table,
// score and engine value, per row its checksum part and records.
#include "densePairScores.h"

#include <algorithm>

#include "pairScoring.h"

namespace snptally::epistasis {

using scoring::RowMarginals;

const char* scoreDensePanel(const DensePanel& panel, const ScoreTables& tables, Score score, const RecordSelection& selection,
                            PanelOutcome& out) {
  // Class genotype counts within their classes: the per-SNP marginals (IG) read the score tables at them.
  if (!scoring::countsWithinClasses(panel.rowCounts, panel.rowsReal, panel.controls, panel.cases)
      || !scoring::countsWithinClasses(panel.colCounts, panel.colsReal, panel.controls, panel.cases)) {
    return "genotype counts exceed the class sizes";
  }
  RecordFilter filter(selection);
  std::vector<double> rowValues(static_cast<size_t>(panel.colsReal));
  double* values = rowValues.data();
  std::vector<double> colMI(score == Score::kIG ? static_cast<size_t>(panel.colsReal) : 0);
  for (size_t c = 0; c < colMI.size(); c++) colMI[c] = scoring::snpMutualInformation(tables.nLogN, tables.ln2, panel.colCounts + 4 * c, panel.controls, panel.cases);
  for (int64_t r = 0; r < panel.rowsReal; r++) {
    const int64_t i = panel.rowVectorFirst + r;
    const int64_t c0 = panel.strictUpper ? std::max<int64_t>(0, i + 1 - panel.colVectorFirst) : 0;
    if (c0 >= panel.colsReal) continue;
    // Blocks are disjoint ranges of SNPs (or one block, strictUpper): the row SNP is later for all columns or none.
    const bool transposed = i > panel.colVectorFirst + c0;
    const RowMarginals marginals{
        score == Score::kIG ? scoring::snpMutualInformation(tables.nLogN, tables.ln2, panel.rowCounts + 4 * r, panel.controls, panel.cases) : 0,
        colMI.data()};
    if (!scoring::rowScorerOf(score, transposed)(panel, tables, marginals, r, c0, panel.colsReal, values)) {
      return "a pair's tallies exceed its SNPs' genotype counts";
    }
    if (panel.values != nullptr) std::copy(values + c0, values + panel.colsReal, panel.values + r * panel.numCols + c0);
    const char* failure = scoring::addScoredRow(i, panel.colVectorFirst + c0, panel.colsReal - c0, values + c0, panel.numVector, selection, filter, out);
    if (failure[0] != '\0') return failure;
  }
  scoring::keepRecordsPassingFinalBar(filter, out);
  return "";
}

}  // namespace snptally::epistasis
