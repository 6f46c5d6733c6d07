import numpy as np, plotly.graph_objects as go
import streamlit as st
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    x = np.linspace(0.01, 0.99, 99)
    fig = go.Figure()
    fig.add_scatter(x=x, y=x, line=dict(dash="dot"))
    fig.add_scatter(x=x, y=x**2, fill="tonexty")
    fig.update_layout(height=340, title="t")
    st.plotly_chart(fig, theme=None)
    st.write(v)
f()
