// Native r² of a windowed run's band (engine/finalize/pairBands.ts's task, r2WindowBand.ts's job): for every pair of the
// band's panels in the LD window, the sparse r² tallies by popcounts straight on the packed planes (AVX-512 VPOPCNTQ,
// eight columns a time, where the CPU has it; else 64-bit popcounts), r² by the same double operations in the same
// order as r2Values.ts r2FromSums (built with -ffp-contract=off), the exact checksum part of EntrySink.addPairEntryRow,
// and the records past the threshold (and a top-N writer's bar) in the file's layout, in the JS path's order: panels in
// order, rows in order, each row's window columns ascending. Pure C++: the N-API binding (r2Binding.cc) checks arguments.
#pragma once

#include <cstdint>

#include "checksumParts.h"
#include "recordFilter.h"

namespace snptally::r2 {

/** r2Planes.ts R2_PLANE: HOM, NONZERO, HET, PRESENT. */
constexpr int kNumPlanes = 4;

/** A block of vectors: planes vector-major (numPlanes planes of words64 64-bit words each; fields beyond nf are 0). */
struct PlaneBlock {
  const uint64_t* words;
  int64_t vectorFirst;    // global index of local vector 0
  int64_t numVectorReal;  // local vectors that are real
};

/** core/pairWindow.ts PairWindowLimits (global vector indices). */
struct Window {
  const uint32_t* bandBegin;
  const uint32_t* bandEnd;
  const uint32_t* chrBegin;
  const uint32_t* chrEnd;
  bool interChr;
};

/** engine/pipeline/windowPanels.ts PanelGeometry: local rows × local columns. */
struct Panel {
  int64_t rowFirst, numRows, colFirst, numCols;
  bool strictUpper;
};

struct Band {
  PlaneBlock rows, cols;
  int64_t words64;    // 64-bit words per plane
  int64_t numVector;  // the run's, for the checksum's uids
  Window window;
  const Panel* panels;
  int64_t numPanels;
};

/** Where a band's results go: the checksum part, counts, and records in the caller's buffer. */
struct BandOutcome : native::ChecksumPart {
  uint32_t* recordWords = nullptr;  // 3 words a record: 2i + 1, 2j + 1, the float32 bits of r²
  uint64_t recordCapacity = 0;      // records that fit
  uint64_t numRecords = 0;
};

/** Whether the AVX-512 tallies run on this CPU (else the 64-bit popcount path, the same tallies). */
bool avx512Usable();

/**
 * Runs the band. `allowAvx512` false takes the 64-bit path (tests compare the two). Returns an empty string, or what
 * was wrong (records beyond the capacity, a value outside the checksum's range: a caller's bug).
 */
const char* r2WindowBand(const Band& band, const native::RecordSelection& selection, bool allowAvx512, BandOutcome& out);

}  // namespace snptally::r2
