package resolvers

// LengthsOf is lengthsOf, for the cost tests of package resolvers_test.
var LengthsOf = lengthsOf
