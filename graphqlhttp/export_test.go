package graphqlhttp

// HasKey is hasKey, for the tests of the live queries' keys.
var HasKey = hasKey
