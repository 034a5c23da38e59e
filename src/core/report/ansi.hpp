#pragma once
// The terminal styles the text renderers share (SGR escape sequences, ECMA-48): one definition, so
// that the renderers agree on them and a unity build sees each name once.
namespace cudasync::report::ansi {

inline constexpr const char* kReset = "\x1b[0m";
inline constexpr const char* kBold = "\x1b[1m";
inline constexpr const char* kItalic = "\x1b[3m";
inline constexpr const char* kDim = "\x1b[2m";
inline constexpr const char* kCyan = "\x1b[36m";
inline constexpr const char* kBoldUnderline = "\x1b[1;4m";

}  // namespace cudasync::report::ansi
